import { isDeepStrictEqual } from 'node:util';
/**
 * The buyer's tax data checked before confirming, so the PAC is not the first to say no. Each finding
 * names its field and a stable code the page shows beside it. Returns the data as the CFDI writes it
 * (RFC and name upper-cased, spaces collapsed) with every finding, not the first.
 */
import type { ErrorDetail } from '../platform/errors.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import { checkRfc } from '../domain/tax-id/check-rfc.js';
import type { Customer } from './customer.js';
import type { InvoiceRules } from '../merchants/merchant.js';
import { USES_NOT_FOR_SALES } from '../merchants/check-invoice-rules.js';

export const GENERIC_RFC = 'XAXX010101000';
export const FOREIGN_RFC = 'XEXX010101000';

// A company's legal name in CFDI 4.0 omits its type ("SA DE CV", "S.C."...): SAT's registry has it without.
const COMPANY_SUFFIX = /\s(S\.?\s?A\.?\s?P\.?\s?I\.?|S\.?\s?A\.?\s?B\.?|S\.?\s?A\.?|S\.?\s?DE\s?R\.?\s?L\.?|S\.?\s?C\.?|A\.?\s?C\.?|S\.?\s?A\.?\s?S\.?)(\s+DE\s+C\.?\s?V\.?)?\.?$/;

export interface CheckedCustomer {
  customer: Customer;
  personType: 'natural' | 'legal';
  /** What SAT would refuse: confirming waits until they are corrected. */
  findings: ErrorDetail[];
  /** What the buyer should look at twice, but SAT may accept (an RFC whose check digit does not match). */
  warnings: ErrorDetail[];
}

function finding(field: string, code: string, message: string): ErrorDetail {
  return { field: `customer.${field}`, code, message, source: 'service' };
}

export interface CustomerContext {
  catalogs: SatCatalogs;
  expeditionPlace: string;
  onDate: string;
  /** The merchant's rules (shared/merchants/merchant.ts). */
  rules: Pick<InvoiceRules, 'allowGenericRfc' | 'allowedCfdiUses'>;
}

export function checkCustomer(input: Customer, ctx: CustomerContext): CheckedCustomer {
  const customer: Customer = {
    ...input,
    rfc: input.rfc.trim().toUpperCase(),
    name: input.name.trim().replace(/\s+/g, ' ').toUpperCase(),
    email: input.email.trim(),
  };
  const findings: ErrorDetail[] = [];
  const rfc = checkRfc(customer.rfc);
  const personType = rfc.ok ? rfc.personType : customer.rfc.length === 12 ? 'legal' : 'natural';
  if (!rfc.ok) findings.push(finding('rfc', rfc.code, rfc.message));
  const warnings: ErrorDetail[] = [];
  if (rfc.ok && !rfc.checkDigit.matches) {
    warnings.push(
      finding(
        'rfc',
        'rfc_check_digit',
        `The last character of ${customer.rfc} is not its computed check digit (${rfc.checkDigit.expected}). SAT has issued some RFCs like this: check it against the tax-status certificate.`,
      ),
    );
  }

  const generic = customer.rfc === GENERIC_RFC || customer.rfc === FOREIGN_RFC;
  if (customer.rfc === GENERIC_RFC && !ctx.rules.allowGenericRfc) {
    // Not SAT's refusal but the merchant's: such a CFDI has no fiscal use for the buyer, the sale belongs in the
    // global invoice, and the QR could no longer be invoiced to the buyer's own RFC without a cancellation.
    findings.push(finding('rfc', 'generic_rfc_not_offered', "Without an RFC no invoice is needed: this sale is included in the store's global invoice."));
  }
  if (generic) {
    // Anexo 20: a generic receptor has regime 616, use S01 and the expedition place as its zip.
    if (customer.tax_regime !== '616')
      findings.push(finding('tax_regime', 'tax_regime_not_allowed', `With RFC ${customer.rfc} the tax regime is 616 (Sin obligaciones fiscales).`));
    if (customer.cfdi_use !== 'S01') findings.push(finding('cfdi_use', 'cfdi_use_not_allowed', `With RFC ${customer.rfc} the CFDI use is S01 (Sin efectos fiscales).`));
    if (customer.postal_code !== ctx.expeditionPlace)
      findings.push(finding('postal_code', 'postal_code_mismatch', `With RFC ${customer.rfc} the postal code is the store's (${ctx.expeditionPlace}).`));
    if (customer.rfc === GENERIC_RFC && customer.name === 'PUBLICO EN GENERAL') {
      findings.push(finding('name', 'name_not_allowed', 'A nominative invoice to XAXX010101000 carries the buyer\'s name; "PUBLICO EN GENERAL" is for global invoices.'));
    }
    if (customer.rfc === FOREIGN_RFC && (!customer.tax_residence || customer.tax_residence === 'MEX' || !ctx.catalogs.description('c_Pais', customer.tax_residence))) {
      findings.push(finding('tax_residence', 'tax_residence_required', 'A foreign buyer (XEXX010101000) gives the country of tax residence (c_Pais, not MEX).'));
    }
  } else {
    if (customer.tax_residence !== undefined) findings.push(finding('tax_residence', 'tax_residence_not_allowed', 'tax_residence is only for XEXX010101000.'));
    if (personType === 'legal' && COMPANY_SUFFIX.test(customer.name)) {
      findings.push(
        finding('name', 'name_has_company_suffix', 'Write the legal name without the company type (for example, without "SA DE CV"), as on the tax-status certificate.'),
      );
    }
    const regime = ctx.catalogs.regime(customer.tax_regime);
    if (!regime || ctx.catalogs.check('c_RegimenFiscal', customer.tax_regime, ctx.onDate).ok === false) {
      findings.push(finding('tax_regime', 'tax_regime_unknown', `${customer.tax_regime} is not a tax regime in SAT's catalog.`));
    } else if (!(personType === 'legal' ? regime.legalPerson : regime.naturalPerson)) {
      findings.push(
        finding(
          'tax_regime',
          'tax_regime_not_allowed',
          `Regime ${customer.tax_regime} (${regime.description}) is not for a ${personType === 'legal' ? 'company (persona moral)' : 'person (persona física)'}.`,
        ),
      );
    }
  }
  const use = ctx.catalogs.cfdiUse(customer.cfdi_use);
  if (!use || ctx.catalogs.check('c_UsoCFDI', customer.cfdi_use, ctx.onDate).ok === false) {
    findings.push(finding('cfdi_use', 'cfdi_use_unknown', `${customer.cfdi_use} is not a CFDI use in SAT's catalog.`));
  } else if (USES_NOT_FOR_SALES.has(customer.cfdi_use)) {
    findings.push(
      finding(
        'cfdi_use',
        'cfdi_use_not_for_sales',
        `${customer.cfdi_use} (${use.description}) is for ${customer.cfdi_use === 'CP01' ? 'payment receipts' : 'payroll'}, not for a sale's invoice.`,
      ),
    );
  } else if (!generic && ctx.rules.allowedCfdiUses && !ctx.rules.allowedCfdiUses.includes(customer.cfdi_use)) {
    findings.push(finding('cfdi_use', 'cfdi_use_not_offered', `This store invoices with the CFDI uses ${ctx.rules.allowedCfdiUses.join(', ')}.`));
  } else if (!generic && (!(personType === 'legal' ? use.legalPerson : use.naturalPerson) || !use.receiverRegimes.includes(customer.tax_regime))) {
    findings.push(finding('cfdi_use', 'cfdi_use_not_allowed', `CFDI use ${customer.cfdi_use} (${use.description}) is not allowed for regime ${customer.tax_regime}.`));
  }
  return { customer, personType, findings, warnings };
}

/**
 * Whether a recorded confirmation was made with this buyer's data: a repeated confirm (double click, a
 * second device, a POS retry) then gets the first answer. jsonb keeps its own key order: values are compared.
 */
export function sameCustomer(recorded: Customer, customer: Customer): boolean {
  return isDeepStrictEqual(recorded, JSON.parse(JSON.stringify(customer)));
}
