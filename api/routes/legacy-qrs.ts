import { legacyCreatedView, legacyResolvedView } from '../contract/legacy/legacy-qr-views.js';
import { LEGACY_SUNSET_AT, legacyLinkHeader } from '../legacy/legacy-sunset.js';
import { LEGACY_DEFAULTS } from '../legacy/to-qr-create-request.js';
import { fixedViewParts, qrTransactionView } from '../contract/qrs/qr-transaction-view.js';
import { ensureInvoiceable } from '../buyer/open-sale.js';
import { viewContext } from '../deps.js';
import { createLegacyQr } from '../legacy/create-legacy-qr.js';
import { idempotencyCacheReads } from '../qrs/create-qr.js';
import { ownSaleFromLink } from '../legacy/own-sale-from-link.js';
import { legacyDeprecation } from '../middleware/legacy-deprecation.js';
import { apiKeyPrefetchingRule, apiKeyRule, precededRule } from '../access/access-rules.js';
import { errorResponse, json, qrLinkQuery } from '../routing/openapi-parts.js';
import { jsonParsedOnly } from '../routing/request-body.js';
import { defineRoute, type Route } from '../routing/route.js';

export interface LegacyQrRoutesOptions {
  /** The clock that decides the sunset; tests move it. */
  now?: () => Date;
}

const policy = `Deprecated: every answer carries Deprecation (RFC 9745), Sunset: ${LEGACY_SUNSET_AT.toUTCString()} (RFC 8594) and a Link to the successor; from the sunset on, 410 endpoint_sunset.`;

/**
 * The earlier contract (spec "Versioning" 4), still answered for integrations that never migrated, with
 * Deprecation, Sunset and Link headers until the sunset and 410 `endpoint_sunset` after it. The deprecation
 * headers (and the 410 after the sunset) come before the key is checked: a 401 carries them too.
 */
export function legacyQrRoutes(options: LegacyQrRoutesOptions = {}): Route[] {
  const now = options.now ?? (() => new Date());
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/qrs',
      access: precededRule(
        (deps) => legacyDeprecation({ now, link: legacyLinkHeader(deps.config.publicBaseUrl, '/v1/qrs'), successor: 'POST /v1/qrs' }),
        apiKeyPrefetchingRule((ctx, keyId) => idempotencyCacheReads(ctx.get('Idempotency-Key'), keyId)),
      ),
      // Validated by createLegacyQr with its headers (api/legacy/to-qr-create-request.ts).
      body: jsonParsedOnly,
      operationId: 'createLegacyQr',
      summary: `Earlier contract of POST /v1/qrs: the sale mapped onto it (payment method PUE, or PPD for form 99; type_of_receipt ${LEGACY_DEFAULTS.typeOfReceipt}; export_code ${LEGACY_DEFAULTS.exportCode}; sale_id legacy-<Idempotency-Key>). ${policy}`,
      deprecated: true,
      parameters: [
        { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'X-TIME-ZONE', in: 'header', required: false, schema: { type: 'string', default: LEGACY_DEFAULTS.timeZone }, description: 'IANA time zone' },
      ],
      requestBody: { required: true, content: json('LegacyQrCreateRequest') },
      responses: {
        201: { description: 'The QR (also for an idempotent replay, with Idempotent-Replayed: true)', content: json('LegacyQrCreated') },
        400: errorResponse('Invalid or missing fields (earlier names) or headers, malformed JSON'),
        404: errorResponse("store_not_found: store is not the API key's point of sale"),
        409: errorResponse('`idempotency_key_reused`: the Idempotency-Key was used with a different body'),
        410: errorResponse('endpoint_sunset: retired, use the successor in Link'),
        415: errorResponse('Content-Type is not application/json'),
        422: errorResponse('issuer_mismatch, merchant inactive, CSD missing or expired, SAT catalog or arithmetic rule'),
      },
      handle: (deps) => async (ctx) => {
        const result = await createLegacyQr(deps, ctx.state.apiKey, {
          body: ctx.state.body,
          idempotencyKey: ctx.get('Idempotency-Key'),
          timeZone: ctx.get('X-TIME-ZONE'),
          presentedKeyId: ctx.state.presentedKeyId,
          prefetched: ctx.state.prefetched,
        });
        if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
        ctx.status = 201;
        ctx.body = legacyCreatedView(result.view);
      },
    }),
    /** The merchant reading its own QR: unlike the buyer's resolve, it does not move PENDING to SCANNED. */
    defineRoute({
      method: 'get',
      path: '/api/v1/qrs',
      access: precededRule((deps) => legacyDeprecation({ now, link: legacyLinkHeader(deps.config.publicBaseUrl), successor: 'GET /v1/qrs/{qrId}' }), apiKeyRule),
      operationId: 'getLegacyQr',
      summary: `Earlier contract: the API key's own QR from the three parameters of qr_content; unlike the buyer's resolve it does not mark the QR scanned. Successor: GET /v1/qrs/{qrId}. ${policy}`,
      deprecated: true,
      parameters: qrLinkQuery,
      responses: {
        200: { description: 'The QR; sat_payment_method is the payment form', content: json('LegacyQrResolved') },
        400: errorResponse('invalid_signature, unsupported_version'),
        404: errorResponse("qr_not_found: unknown token, or another merchant's QR"),
        409: errorResponse('qr_already_invoiced (consumed)'),
        410: errorResponse('qr_expired, qr_cancelled, endpoint_sunset'),
        422: errorResponse('store_inactive'),
      },
      handle: (deps) => async (ctx) => {
        const sale = await ownSaleFromLink(deps, ctx.state.apiKey, ctx.query);
        ctx.set('Link', legacyLinkHeader(deps.config.publicBaseUrl, `/v1/qrs/${sale.record.transaction.id}`));
        await ensureInvoiceable(deps, sale);
        const view = viewContext(deps);
        ctx.body = legacyResolvedView(qrTransactionView(sale.record, view, fixedViewParts(sale.record, view)));
      },
    }),
  ];
}
