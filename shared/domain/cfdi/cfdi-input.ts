import type { Decimal } from 'decimal.js';

/** Everything a CFDI 4.0 (Ingreso/Egreso, or Pago with Pagos 2.0) says, as plain values: what build-cfdi.ts writes. */
export interface CfdiTaxInput {
  type: 'Traslado' | 'Retencion';
  tax: string;
  factor: string;
  /** six-decimal text (`0.160000`); absent for Exento */
  rate?: string;
  base: Decimal;
  /** absent for Exento */
  amount?: Decimal;
}

export interface CfdiConceptInput {
  productServiceKey: string;
  sku?: string;
  quantity: Decimal;
  unitKey: string;
  unitName?: string;
  description: string;
  unitPrice: Decimal;
  amount: Decimal;
  discount?: Decimal;
  taxObject: string;
  taxes: CfdiTaxInput[];
}

export interface CfdiParty {
  rfc: string;
  name: string;
  taxRegime: string;
}

export interface CfdiReceptor extends CfdiParty {
  postalCode: string;
  cfdiUse: string;
  /** c_Pais of a foreign receptor (XEXX010101000) */
  taxResidence?: string;
}

/** What every CFDI type carries. */
interface CfdiCommonInput {
  series?: string;
  folio?: string;
  /** Local wall-clock time of issue in the expedition place's zone, `YYYY-MM-DDTHH:mm:ss`. */
  issuedLocal: string;
  expeditionPlace: string;
  relatedCfdis?: { relationType: string; uuids: string[] };
  issuer: CfdiParty;
}

/** An Ingreso or Egreso. */
export interface CfdiInput extends CfdiCommonInput {
  type: 'I' | 'E';
  paymentForm?: string;
  paymentMethod?: string;
  currency: string;
  currencyDecimals: number;
  exchangeRate?: Decimal;
  exportCode: string;
  globalInfo?: { periodicity: string; months: string; year: number };
  receptor: CfdiReceptor;
  concepts: CfdiConceptInput[];
}

/**
 * A tax of the paid invoice, as the invoice states it: its base (per concept, or summed per tax, factor
 * and rate; the builder sums them). A CfdiTaxInput of the invoice fits as is.
 */
export type PaidInvoiceTax = Pick<CfdiTaxInput, 'type' | 'tax' | 'factor' | 'rate' | 'base'>;

/** One invoice (issued PPD) a payment pays part or all of: a pago20:DoctoRelacionado. */
export interface CfdiPaidDocument {
  uuid: string;
  series?: string;
  folio?: string;
  currency: string;
  currencyDecimals: number;
  /**
   * Units of this document's currency worth one unit of the payment's currency (EquivalenciaDR, up to 10
   * decimals); required when the currencies differ, "1" is written when they are equal.
   */
  equivalence?: Decimal;
  installment: number;
  previousBalance: Decimal;
  amountPaid: Decimal;
  /** c_ObjetoImp of the payment (ObjetoImpDR): 02 when the invoice carries taxes, then give `invoiceTaxes`. */
  taxObject: string;
  /** The invoice's Total and taxes: the payment carries amountPaid / total of each tax (TrasladosDR, RetencionesDR). */
  invoiceTaxes?: { total: Decimal; taxes: PaidInvoiceTax[] };
}

/** One payment received: a pago20:Pago. */
export interface CfdiPayment {
  /** When the payee received it, local wall-clock `YYYY-MM-DDTHH:mm:ss` (12:00:00 when the hour is unknown). */
  paidAt: string;
  /** c_FormaPago (FormaDePagoP), never 99. */
  form: string;
  currency: string;
  currencyDecimals: number;
  /** MXN per unit of `currency` (TipoCambioP, up to 6 decimals); required unless MXN, where "1" is written. */
  exchangeRate?: Decimal;
  /** Monto, in `currency`: at least what the related documents are paid, converted. */
  amount: Decimal;
  operationNumber?: string;
  /** The payer's bank (RfcEmisorCtaOrd, NomBancoOrdExt for a foreign one) and account, the payee's; per c_FormaPago. */
  payerBankRfc?: string;
  payerForeignBankName?: string;
  payerAccount?: string;
  payeeBankRfc?: string;
  payeeAccount?: string;
  documents: CfdiPaidDocument[];
}

/**
 * A Pago (type P) with the Pagos 2.0 complement: the envelope is fixed by Anexo 20 (SubTotal and Total 0,
 * Moneda XXX, one "Pago" concept, UsoCFDI CP01), so only what varies is given.
 */
export interface CfdiPaymentInput extends CfdiCommonInput {
  type: 'P';
  receptor: Omit<CfdiReceptor, 'cfdiUse'>;
  payments: CfdiPayment[];
}
