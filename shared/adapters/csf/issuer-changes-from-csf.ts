/** What a synchronization changes on an issuer, given what SAT's CSF says today. */
import type { SatCatalogs } from '../../sat/catalogs.js';
import { checkRfc } from '../../domain/tax-id/check-rfc.js';
import type { CsfData } from './csf-client.js';

export interface IssuerTaxState {
  rfc: string;
  taxRegimeCode: string;
}

export type CsfOutcome = { ok: true; changes: { businessName: string; taxRegimeCode: string; zip: string } } | { ok: false; reason: string };

export function issuerChangesFromCsf(issuer: IssuerTaxState, csf: CsfData, catalogs: SatCatalogs, onDate: string): CsfOutcome {
  if (csf.rfc.toUpperCase() !== issuer.rfc) return { ok: false, reason: `the CSF is for ${csf.rfc}, not ${issuer.rfc}` };
  const rfc = checkRfc(issuer.rfc);
  const person = rfc.ok ? rfc.personType : undefined;
  // Regimes SAT lists that are in force and fit the RFC's person type; the current one stays if listed.
  const usable = csf.regimes
    .map((r) => r.code)
    .filter((code) => {
      const info = catalogs.regime(code);
      return catalogs.check('c_RegimenFiscal', code, onDate).ok && info !== undefined && (person === 'legal' ? info.legalPerson : info.naturalPerson);
    });
  const regime = usable.includes(issuer.taxRegimeCode) ? issuer.taxRegimeCode : usable[0];
  if (!regime) return { ok: false, reason: `the CSF lists no tax regime usable for ${issuer.rfc} (${csf.regimes.map((r) => r.code).join(', ') || 'none'})` };
  return { ok: true, changes: { businessName: csf.legalName.trim().replace(/\s+/g, ' '), taxRegimeCode: regime, zip: csf.zip } };
}
