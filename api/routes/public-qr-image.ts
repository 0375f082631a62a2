import { AppError } from '../../shared/platform/errors.js';
import { qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import { renderQrPng } from '../../shared/domain/qr-code/render-qr-png.js';
import { verifyImageUrl } from '../../shared/qr/signed-image-url.js';
import { qrImageOf } from '../../shared/repositories/qr-transactions.js';
import type { AppContext } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { signedLinkRule, type SignedLinkGrant } from '../access/access-rules.js';
import { binary, errorResponse } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

/** Where qr_url points: one literal segment (`images`) ahead of the id, so no other public QR route can claim it. */
export const QR_IMAGE_ROUTE = '/v1/public/qrs/images/{qrId}.png';
/** Where qr_url pointed before: kept for QR images already printed or stored, left out of the OpenAPI document. */
export const EARLIER_QR_IMAGE_ROUTE = '/v1/public/qrs/{qrId}/image.png';

/** qr_url's signature and expiry, for its QR's id. */
const imageLink = signedLinkRule({
  verify: (params, query, key) => (params.qrId === undefined ? undefined : { subject: params.qrId, check: verifyImageUrl(params.qrId, query.exp, query.sig, key) }),
  expired: () => new AppError(410, 'url_expired', 'This QR image URL has expired.'),
  invalid: 'This QR image URL is not valid.',
});

/** qr_url: the QR PNG without credentials, for a signed, unexpired URL only. */
const image = (deps: ApiDeps) => async (ctx: AppContext & { state: SignedLinkGrant<string> }) => {
  const qrId = ctx.state.signedLink;
  const row = await qrImageOf(deps.db, qrId);
  if (!row) throw new AppError(404, 'not_found', 'No such QR image.');
  const maxAge = Math.max(0, Math.floor((row.expires_at.getTime() - Date.now()) / 1000));
  ctx.set('Cache-Control', `private, max-age=${Math.min(maxAge, 86_400)}`);
  ctx.type = 'image/png';
  // A finished QR keeps no image: the same PNG again from its token.
  ctx.body = row.qr_png ?? renderQrPng(qrContent(deps.config.publicBaseUrl, signQrToken(row.token, deps.config.qrHmacKey)));
};

export const publicQrImageRoutes = [
  defineRoute({
    method: 'get',
    path: QR_IMAGE_ROUTE,
    access: imageLink,
    operationId: 'getQrImage',
    summary: 'The QR image, through a signed URL (qr_url). QR links printed before this path are still answered at /v1/public/qrs/{qrId}/image.png',
    responses: {
      200: { description: 'PNG', content: binary('image/png') },
      404: errorResponse('No such QR'),
      410: errorResponse('URL expired'),
    },
    handle: image,
  }),
  defineRoute({
    method: 'get',
    path: EARLIER_QR_IMAGE_ROUTE,
    access: imageLink,
    undocumented: 'ambiguous with /v1/public/qrs/code/{code} (issue #29); answered for QR images already printed or stored',
    handle: image,
  }),
];
