/**
 * A PAC refusal as the buyer's page shows it: the field it concerns and a stable code, with the PAC's
 * raw code kept. Codes from SAT's CFDI 4.0 error matrix about the receptor point at the buyer's data;
 * anything else is the document's problem, not theirs.
 */
import type { InvoiceRefusal } from '../repositories/invoices.js';

const RECEPTOR_CODES: Record<string, { field: string; code: string; message: string }> = {
  CFDI40144: { field: 'customer.rfc', code: 'rfc_not_registered', message: 'SAT does not list this RFC as registered.' },
  CFDI40145: {
    field: 'customer.name',
    code: 'legal_name_mismatch',
    message: 'The name does not match the one SAT has for this RFC: write it exactly as on the tax-status certificate.',
  },
  CFDI40147: { field: 'customer.postal_code', code: 'postal_code_mismatch', message: 'The postal code does not match the fiscal address SAT has for this RFC.' },
  CFDI40157: { field: 'customer.tax_regime', code: 'tax_regime_not_allowed', message: 'This tax regime is not for this kind of taxpayer.' },
  CFDI40158: { field: 'customer.tax_regime', code: 'tax_regime_mismatch', message: 'SAT does not list this tax regime for this RFC.' },
  CFDI40161: { field: 'customer.cfdi_use', code: 'cfdi_use_not_allowed', message: 'This CFDI use is not allowed for this tax regime.' },
};

export function refusalFromPac(pacCode: string, pacMessage: string): InvoiceRefusal {
  const receptor = RECEPTOR_CODES[pacCode];
  if (receptor) {
    return {
      code: 'customer_data_refused',
      message: "The tax authority's records do not match the data given; correct it and confirm again.",
      details: [{ field: receptor.field, code: receptor.code, message: receptor.message, source: 'pac', pac_code: pacCode }],
    };
  }
  return {
    code: 'invoice_refused',
    message: `The PAC refused the invoice: ${pacMessage}`,
    details: [{ field: '(document)', code: 'pac_refused', message: pacMessage, source: 'pac', pac_code: pacCode }],
  };
}
