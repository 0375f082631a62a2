import type { FromSchema } from 'json-schema-to-ts';
import type { invoiceModeResponseSchema } from '../contract/merchants/merchant-schema.js';
import { CFDI_TEXT, cfdiTextProblem } from '../../shared/sat/cfdi-text-rules.js';
import { CSD_FIELDS, checkCsd } from '../../shared/csd/check-csd.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { findIssuer } from '../../shared/repositories/issuers.js';
import { findCsdSummary, saveMerchantCsd, type CsdSummaryRow } from '../../shared/repositories/merchant-csds.js';
import type { MerchantRow } from '../../shared/repositories/merchants.js';
import type { ApiDeps } from '../deps.js';
import type { MultipartForm } from '../context.js';

export type InvoiceModeResponse = FromSchema<typeof invoiceModeResponseSchema>;

/** The spec's InvoiceModeResponse, plus what the certificate says (number, RFC, validity). */
export function invoiceModeView(csd: CsdSummaryRow): InvoiceModeResponse {
  return {
    merchantId: csd.merchant_id,
    invoiceType: 'SERVICE',
    csdDataRequest: {
      cerFileName: csd.cer_file_name,
      keyFileName: csd.key_file_name,
      serialNumberPrefix: csd.serial_number_prefix,
      businessCode: csd.business_code,
    },
    apiDataRequest: null,
    certificate: { number: csd.certificate_number, rfc: csd.rfc, validFrom: csd.valid_from.toISOString(), validTo: csd.valid_to.toISOString(), mode: csd.mode },
  };
}

/**
 * POST/PUT invoice-mode: checks the .cer/.key/password against each other, the calendar and the
 * merchant's issuer, then stores them (key and password encrypted) in one statement. Nothing is
 * stored when any check fails.
 */
export async function saveInvoiceMode(deps: ApiDeps, merchant: MerchantRow, form: MultipartForm): Promise<{ replaced: boolean; view: InvoiceModeResponse }> {
  const cer = form.files[CSD_FIELDS.cerFile];
  const key = form.files[CSD_FIELDS.keyFile];
  const password = form.fields[CSD_FIELDS.password];
  const prefix = form.fields[CSD_FIELDS.serialNumberPrefix]?.trim() || null;
  const missing: ErrorDetail[] = [];
  if (!cer) missing.push({ field: CSD_FIELDS.cerFile, code: 'required', message: 'The .cer file is required.' });
  if (!key) missing.push({ field: CSD_FIELDS.keyFile, code: 'required', message: 'The .key file is required.' });
  if (!password) missing.push({ field: CSD_FIELDS.password, code: 'required', message: 'The private key password is required.' });
  // It is the CFDI's Serie: what SAT's schema accepts there (up to 25 characters, no "|").
  const seriesProblem = prefix === null ? undefined : cfdiTextProblem(CFDI_TEXT.series, prefix);
  if (seriesProblem !== undefined) {
    missing.push({ field: CSD_FIELDS.serialNumberPrefix, code: 'invalid_for_cfdi', message: `${CSD_FIELDS.serialNumberPrefix} ${seriesProblem} (it is the CFDI's Serie).` });
  }
  if (missing.length > 0 || !cer || !key || !password) throw new AppError(400, 'validation_failed', 'The CSD upload is incomplete.', { details: missing });

  const issuer = await findIssuer(deps.db, merchant.account_id, merchant.issuer_id);
  if (!issuer) throw new Error(`merchant ${merchant.id} has no issuer`);
  const checked = checkCsd(cer.data, key.data, password, issuer.rfc, new Date());
  if ('details' in checked) throw new AppError(400, 'invalid_csd', 'The CSD cannot be used for this merchant.', { details: checked.details });

  const { replaced } = await saveMerchantCsd(
    deps.db,
    merchant.id,
    {
      cer: cer.data,
      key: key.data,
      password,
      cerFileName: cer.fileName,
      keyFileName: key.fileName,
      serialNumberPrefix: prefix,
      businessCode: merchant.external_merchant_id,
      mode: 'development',
    },
    checked.csd,
    encryptionKeyring(deps.config),
  );
  const saved = await findCsdSummary(deps.db, merchant.id);
  if (!saved) throw new Error('CSD vanished after saving');
  return { replaced, view: invoiceModeView(saved) };
}
