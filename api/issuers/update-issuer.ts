import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { LOGO_TARGETS, normalizeLogoField, type NormalizedLogo } from '../../shared/images/normalize-logo.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { groupNotFound } from '../account-resources.js';
import { checkIssuerTaxData } from '../../shared/issuers/check-issuer.js';
import { updateIssuerFormSchema } from '../contract/issuers/issuer-schema.js';
import { groupBelongsTo, updateIssuer, type IssuerRow } from '../../shared/repositories/issuers.js';
import { fileUrl } from '../../shared/platform/storage/file-store.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { ApiDeps } from '../deps.js';
import type { MultipartForm } from '../context.js';

const validateFields = validator(updateIssuerFormSchema);

/**
 * PUT /v1/qrs/issuers/{issuerId} (multipart): the form fields, an optional logo decoded and
 * re-encoded like merchant logos; the logo file and the issuer row are written in one transaction.
 */
export async function updateIssuerFromForm(deps: ApiDeps, issuer: IssuerRow, form: MultipartForm): Promise<IssuerRow> {
  const unknownFiles = Object.keys(form.files).filter((name) => name !== 'logo');
  if (unknownFiles.length > 0) {
    throw new AppError(400, 'validation_failed', 'Unknown file fields.', {
      details: unknownFiles.map((field) => ({ field, code: 'unknown_field', message: `${field} is not a field of this request.` })),
    });
  }
  const fields = validateFields(form.fields);
  const details: ErrorDetail[] = [];
  const checked = checkIssuerTaxData({ taxId: issuer.rfc, taxRegimeCode: fields.taxRegimeCode }, deps.catalogs, satToday());
  if ('details' in checked) details.push(...checked.details);
  let logo: NormalizedLogo | undefined;
  if (form.files.logo) {
    const result = await normalizeLogoField('logo', form.files.logo.data, LOGO_TARGETS.invoice);
    if ('detail' in result) details.push(result.detail);
    else logo = result.logo;
  }
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The issuer has invalid fields.', { details });
  if (!(await groupBelongsTo(deps.db, issuer.account_id, fields.groupId))) throw groupNotFound(fields.groupId);
  // The file first: if the row is not written, an unreferenced file under a random key is all that is left.
  const logoUrl = logo
    ? fileUrl(deps.config.publicBaseUrl, await deps.files.put(`logos/${issuer.id}`, { contentType: logo.contentType, data: logo.data }, logo.extension))
    : undefined;
  const updated = await deps.db.transaction(async (trx) => {
    const row = await updateIssuer(trx, issuer.id, {
      group_id: fields.groupId,
      alias: fields.alias,
      email: fields.email,
      tax_regime_code: fields.taxRegimeCode,
      ...(fields.status ? { status: fields.status } : {}),
      ...(logoUrl ? { invoice_logo_url: logoUrl } : {}),
    });
    // Thrown inside the transaction so the logo written above is rolled back with it.
    if (row === 'rfc_taken') {
      throw new AppError(409, 'issuer_already_exists', `Group ${fields.groupId} already has an issuer with RFC ${issuer.rfc}.`, {
        details: [{ field: 'groupId', code: 'duplicate', message: 'One issuer per RFC in a group.' }],
      });
    }
    return row;
  });
  return updated;
}
