/**
 * The named steps from a recorded sale to a sealed CFDI: build, self-check Anexo 20's arithmetic,
 * seal. Plain function: the stamp worker loads, calls this, persists and sends.
 */
import { buildCfdi } from '../domain/cfdi/build-cfdi.js';
import type { CfdiInput, CfdiPaymentInput } from '../domain/cfdi/cfdi-input.js';
import { checkCfdiAmounts } from '../domain/cfdi/check-cfdi-amounts.js';
import type { CfdiFinding } from '../domain/cfdi/cfdi-finding.js';
import type { DocumentTotals } from '../domain/cfdi/anexo20-amounts.js';
import { sealCfdi, type CsdSigner } from '../domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../domain/cfdi/serialize-xml.js';
import type { QrTransactionRecord } from '../repositories/qr-transactions.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import { cfdiInputFromSale, type SaleParties } from './cfdi-input-from-sale.js';
import type { Customer } from './customer.js';

export type SealedSale = { ok: true; xml: string; totals: DocumentTotals } | { ok: false; findings: CfdiFinding[] };

export function sealSale(record: QrTransactionRecord, customer: Customer, parties: SaleParties, signer: CsdSigner, catalogs: SatCatalogs): SealedSale {
  return sealInput(cfdiInputFromSale(record, customer, parties, catalogs), signer);
}

/** Any document to seal (a credit note's, say): build, self-check, seal. */
export function sealInput(input: CfdiInput | CfdiPaymentInput, signer: CsdSigner): SealedSale {
  const { comprobante, totals } = buildCfdi(input);
  const findings = checkCfdiAmounts(comprobante);
  if (findings.length > 0) return { ok: false, findings };
  sealCfdi(comprobante, signer);
  return { ok: true, xml: serializeXml(comprobante), totals };
}

// Stands in for the buyer before they say who they are: a generic receptor changes no tax.
const ANY_BUYER: Customer = { rfc: 'XAXX010101000', name: 'COMPRADOR', tax_regime: '616', postal_code: '00000', cfdi_use: 'S01', email: 'x@x.invalid' };

/** What the buyer sees before confirming: the document's totals for this buyer (taxes may depend on them). */
export function previewSale(record: QrTransactionRecord, customer: Customer | undefined, parties: SaleParties, catalogs: SatCatalogs): DocumentTotals {
  return buildCfdi(cfdiInputFromSale(record, customer ?? ANY_BUYER, parties, catalogs)).totals;
}
