import type { ErrorDetail } from '../platform/errors.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import type { InvoiceRules } from './merchant.js';

/** c_UsoCFDI keys SAT reserves for other receipts: CP01 for payment receipts (P), CN01 for payroll (N). */
export const USES_NOT_FOR_SALES: ReadonlySet<string> = new Set(['CP01', 'CN01']);

/** A merchant's allowed CFDI uses exist in SAT's catalog and can be used for a sale's invoice. */
export function checkInvoiceRules(rules: Partial<InvoiceRules> | undefined, catalogs: SatCatalogs): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  (rules?.allowedCfdiUses ?? []).forEach((code, i) => {
    const field = `invoiceRules.allowedCfdiUses[${i}]`;
    if (!catalogs.cfdiUse(code)) out.push({ field, code: 'catalog_key_unknown', message: `${code} is not a CFDI use in SAT's catalog (c_UsoCFDI).` });
    else if (USES_NOT_FOR_SALES.has(code))
      out.push({ field, code: 'cfdi_use_not_for_sales', message: `${code} is for ${code === 'CP01' ? 'payment receipts' : 'payroll'}, not for a sale's invoice.` });
  });
  return out;
}
