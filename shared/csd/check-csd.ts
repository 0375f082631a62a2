/** Everything that makes an uploaded CSD unusable for a merchant, as field-level details for a 400. */
import type { ErrorDetail } from '../platform/errors.js';
import { CsdError, readCsd, type CsdInfo } from './read-csd.js';

export const CSD_FIELDS = {
  cerFile: 'csdDataRequest.cerFile',
  keyFile: 'csdDataRequest.keyFile',
  password: 'csdDataRequest.password',
  serialNumberPrefix: 'csdDataRequest.serialNumberPrefix',
} as const;

/** CSD files are a few KB; 64 KB leaves room and bounds what the API holds in memory. */
export const CSD_MAX_FILE_BYTES = 64 * 1024;

const FIELD_OF: Record<CsdError['code'], string> = {
  csd_wrong_password: CSD_FIELDS.password,
  csd_key_mismatch: CSD_FIELDS.keyFile,
  csd_not_a_csd: CSD_FIELDS.cerFile,
  csd_unreadable: CSD_FIELDS.cerFile,
  csd_files_swapped: CSD_FIELDS.cerFile,
};

export function checkCsd(cer: Buffer, key: Buffer, password: string, issuerRfc: string, now: Date): { csd: CsdInfo } | { details: ErrorDetail[] } {
  let csd: CsdInfo;
  try {
    csd = readCsd(cer, key, password);
  } catch (err) {
    if (err instanceof CsdError) return { details: [{ field: FIELD_OF[err.code], code: err.code, message: err.message }] };
    throw err;
  }
  const details: ErrorDetail[] = [];
  if (csd.validTo.getTime() <= now.getTime()) {
    details.push({ field: CSD_FIELDS.cerFile, code: 'csd_expired', message: `The certificate expired on ${csd.validTo.toISOString()}.` });
  } else if (csd.validFrom.getTime() > now.getTime()) {
    details.push({ field: CSD_FIELDS.cerFile, code: 'csd_not_yet_valid', message: `The certificate is valid from ${csd.validFrom.toISOString()}.` });
  }
  if (csd.rfc !== issuerRfc) {
    details.push({ field: CSD_FIELDS.cerFile, code: 'csd_rfc_mismatch', message: `The certificate belongs to ${csd.rfc}, not to the merchant's issuer ${issuerRfc}.` });
  }
  return details.length > 0 ? { details } : { csd };
}
