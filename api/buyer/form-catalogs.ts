import type { InvoiceRules } from '../../shared/merchants/merchant.js';
import { USES_NOT_FOR_SALES } from '../../shared/merchants/check-invoice-rules.js';
import type { SatCatalogs } from '../../shared/sat/catalogs.js';
import { satToday } from '../../shared/domain/time-zone.js';
import type { FormCatalogs } from '../../web/render-buyer-page.js';

let cached: { day: string; lists: FormCatalogs } | undefined;

/**
 * The regimes and CFDI uses in force today, as the page filters them (by person type, by regime); never the
 * uses SAT reserves for other receipts (CP01, CN01), and only the merchant's allowed ones when it set them.
 */
export function formCatalogs(catalogs: SatCatalogs, rules: Pick<InvoiceRules, 'allowedCfdiUses'>): FormCatalogs {
  const lists = dayCatalogs(catalogs);
  const allowed = rules.allowedCfdiUses;
  return allowed ? { ...lists, uses: lists.uses.filter((u) => allowed.includes(u[0]) || u[0] === 'S01') } : lists;
}

function dayCatalogs(catalogs: SatCatalogs): FormCatalogs {
  const day = satToday();
  if (cached?.day === day) return cached.lists;
  const regimes = catalogs.keys('c_RegimenFiscal', day).flatMap((e) => {
    const r = catalogs.regime(e.key);
    return r ? [[r.code, r.description, r.naturalPerson, r.legalPerson] as FormCatalogs['regimes'][number]] : [];
  });
  const uses = catalogs
    .keys('c_UsoCFDI', day)
    .filter((e) => !USES_NOT_FOR_SALES.has(e.key))
    .flatMap((e) => {
      const u = catalogs.cfdiUse(e.key);
      return u ? [[u.code, u.description, u.naturalPerson, u.legalPerson, [...u.receiverRegimes]] as FormCatalogs['uses'][number]] : [];
    });
  cached = { day, lists: { regimes, uses } };
  return cached.lists;
}
