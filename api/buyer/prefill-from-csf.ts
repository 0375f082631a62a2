import { CsfNotFound, CsfUnavailable, type CsfData } from '../../shared/adapters/csf/csf-client.js';
import { CsfDocumentUnreadable, readCsfDocument } from '../../shared/adapters/csf/read-csf-document.js';
import { AppError } from '../../shared/platform/errors.js';
import { satToday } from '../../shared/domain/time-zone.js';
import type { ApiDeps } from '../deps.js';

/** A CSF PDF is ~100 KB and a phone photo a few MB. */
export const CSF_MAX_BYTES = 8 * 1024 * 1024;

/** What the buyer's form is filled with: SAT's current data, not what the uploaded paper says. */
export interface CsfPrefill {
  rfc: string;
  name: string;
  postal_code: string;
  status: string;
  tax_regimes: { code: string; description: string }[];
  read_from: 'qr' | 'text';
}

// The buyer is waiting on the page: one quick retry, then they can type their data.
const ATTEMPTS = 2;

async function fetchCsf(deps: ApiDeps, rfc: string, idCif: string): Promise<CsfData> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.csf.fetch(rfc, idCif);
    } catch (err) {
      if (err instanceof CsfNotFound) throw new AppError(404, 'csf_not_found', 'SAT does not know a tax-status certificate with this RFC and idCIF.');
      if (!(err instanceof CsfUnavailable) || attempt >= ATTEMPTS) {
        throw new AppError(503, 'csf_unavailable', "SAT's tax-status service is not answering; type the data or try again shortly.", { cause: err });
      }
    }
  }
}

/**
 * Reads the QR of an uploaded CSF (PDF or photo; its text as a fallback), asks SAT for the current data
 * through the CsfClient and answers the buyer's data with only the regimes this RFC holds. The file is
 * read in memory and dropped.
 */
export async function prefillFromCsf(deps: ApiDeps, file: Buffer): Promise<CsfPrefill> {
  let found: Awaited<ReturnType<typeof readCsfDocument>>;
  try {
    found = await readCsfDocument(file, { timeoutMs: deps.config.csfReadTimeoutMs });
  } catch (err) {
    if (err instanceof CsfDocumentUnreadable) {
      throw new AppError(
        422,
        'csf_unreadable',
        err.reason === 'not_a_document' ? 'The file is neither a PDF nor an image that can be read.' : 'No tax-status certificate (CSF) QR or data was found in the file.',
        { details: [{ field: 'document', code: err.reason, message: err.message }] },
      );
    }
    throw err;
  }
  const data = await fetchCsf(deps, found.rfc, found.idCif);
  const today = satToday();
  const personType = data.rfc.length === 12 ? 'legal' : 'natural';
  const regimes = data.regimes
    .map((r) => deps.catalogs.regime(r.code))
    .filter(
      (r): r is NonNullable<typeof r> => r !== undefined && (personType === 'legal' ? r.legalPerson : r.naturalPerson) && deps.catalogs.check('c_RegimenFiscal', r.code, today).ok,
    )
    .map((r) => ({ code: r.code, description: r.description }));
  return { rfc: data.rfc, name: data.legalName, postal_code: data.zip, status: data.status, tax_regimes: regimes, read_from: found.via };
}
