/** Issuer rules a schema cannot say: the RFC itself, and a tax regime that exists and fits the RFC's person type. */
import type { ErrorDetail } from '../platform/errors.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import { checkRfc, type PersonType } from '../domain/tax-id/check-rfc.js';

export interface IssuerTaxData {
  taxId: string;
  taxRegimeCode: string;
}

const PERSON: Record<PersonType, string> = { natural: 'persona física', legal: 'persona moral' };

/** The normalized RFC when everything holds, else the details for a 400. */
export function checkIssuerTaxData(data: IssuerTaxData, catalogs: SatCatalogs, onDate: string): { rfc: string } | { details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const rfc = checkRfc(data.taxId);
  if (!rfc.ok) details.push({ field: 'taxId', code: rfc.code, message: rfc.message });
  else if (rfc.generic || rfc.foreign) details.push({ field: 'taxId', code: 'rfc_generic_not_allowed', message: `${rfc.rfc} is a generic RFC; an issuer has its own.` });
  const own = rfc.ok && !rfc.generic && !rfc.foreign ? rfc : undefined;

  const regime = catalogs.check('c_RegimenFiscal', data.taxRegimeCode, onDate);
  if (!regime.ok) {
    details.push({
      field: 'taxRegimeCode',
      code: regime.reason === 'unknown' ? 'catalog_key_unknown' : 'catalog_key_not_in_force',
      message: `${data.taxRegimeCode} is not a tax regime in force (c_RegimenFiscal).`,
    });
  } else if (own) {
    const info = catalogs.regime(data.taxRegimeCode);
    const allowed = own.personType === 'legal' ? info?.legalPerson : info?.naturalPerson;
    if (!allowed) {
      details.push({
        field: 'taxRegimeCode',
        code: 'tax_regime_not_allowed',
        message: `Regime ${data.taxRegimeCode} (${regime.entry.description}) is not for a ${PERSON[own.personType]}.`,
      });
    }
  }
  return details.length > 0 || !own ? { details } : { rfc: own.rfc };
}
