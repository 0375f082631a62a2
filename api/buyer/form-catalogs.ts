import type { SatCatalogs } from '../../shared/sat/catalogs.js';
import { satToday } from '../../shared/time-zone.js';
import type { FormCatalogs } from '../../web/render-buyer-page.js';

let cached: { day: string; lists: FormCatalogs } | undefined;

/** The regimes and CFDI uses in force today, as the page filters them (by person type, by regime). */
export function formCatalogs(catalogs: SatCatalogs): FormCatalogs {
  const day = satToday();
  if (cached?.day === day) return cached.lists;
  const regimes = catalogs.keys('c_RegimenFiscal', day)
    .flatMap((e) => { const r = catalogs.regime(e.key); return r ? [[r.code, r.description, r.naturalPerson, r.legalPerson] as FormCatalogs['regimes'][number]] : []; });
  const uses = catalogs.keys('c_UsoCFDI', day)
    .flatMap((e) => { const u = catalogs.cfdiUse(e.key); return u ? [[u.code, u.description, u.naturalPerson, u.legalPerson, [...u.receiverRegimes]] as FormCatalogs['uses'][number]] : []; });
  cached = { day, lists: { regimes, uses } };
  return cached.lists;
}
