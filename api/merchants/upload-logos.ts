import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { LOGO_TARGETS, normalizeLogoField } from '../../shared/images/normalize-logo.js';
import { LOGO_ANIMATIONS, type LogoAnimation } from '../../shared/merchants/merchant.js';
import { updateMerchantLogos, type MerchantRow } from '../../shared/repositories/merchants.js';
import { fileUrl } from '../../shared/platform/storage/file-store.js';
import type { ApiDeps } from '../deps.js';
import type { MultipartForm } from '../context.js';

const FILE_FIELDS = { invoiceLogo: 'invoice', appLogo: 'app' } as const;

/**
 * POST /v1/qrs/merchants/{merchantId}/logos: every image is decoded and re-encoded before anything is
 * stored; then the files are stored and the merchant's new URLs written in one transaction.
 */
export async function uploadLogos(deps: ApiDeps, merchant: MerchantRow, form: MultipartForm): Promise<MerchantRow> {
  const details: ErrorDetail[] = [];
  for (const name of [...Object.keys(form.files), ...Object.keys(form.fields)]) {
    if (!(name in FILE_FIELDS) && name !== 'logoAnimation') details.push({ field: name, code: 'unknown_field', message: `${name} is not a field of this request.` });
  }
  const animation = form.fields.logoAnimation;
  if (animation !== undefined && !(LOGO_ANIMATIONS as readonly string[]).includes(animation)) {
    details.push({ field: 'logoAnimation', code: 'invalid_value', message: `logoAnimation must be one of ${LOGO_ANIMATIONS.join(', ')}.` });
  }
  const images: { kind: 'invoice' | 'app'; fileName: string; data: Buffer; contentType: string; extension: string }[] = [];
  for (const [field, kind] of Object.entries(FILE_FIELDS) as [keyof typeof FILE_FIELDS, 'invoice' | 'app'][]) {
    const file = form.files[field];
    if (!file) continue;
    const result = await normalizeLogoField(field, file.data, LOGO_TARGETS[kind]);
    if ('detail' in result) details.push(result.detail);
    else images.push({ kind, fileName: file.fileName, ...result.logo });
  }
  if (details.length === 0 && images.length === 0 && animation === undefined) {
    details.push({ field: 'invoiceLogo', code: 'required', message: 'Send invoiceLogo, appLogo or logoAnimation.' });
  }
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The logos could not be accepted.', { details });

  // Files first: if the row is not written, unreferenced files under random keys are all that is left.
  const changes: Parameters<typeof updateMerchantLogos>[2] = animation ? { logoAnimation: animation as LogoAnimation } : {};
  for (const image of images) {
    const key = await deps.files.put(`logos/${merchant.id}`, { contentType: image.contentType, data: image.data }, image.extension);
    changes[image.kind] = { url: fileUrl(deps.config.publicBaseUrl, key), fileName: image.fileName };
  }
  return deps.db.transaction(async (trx) => {
    const row = await updateMerchantLogos(trx, merchant.id, changes);
    if (!row) throw new Error(`merchant ${merchant.id} vanished`);
    return row;
  });
}
