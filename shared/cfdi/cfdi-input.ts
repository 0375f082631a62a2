import type { Decimal } from 'decimal.js';

/** Everything a CFDI 4.0 (Ingreso/Egreso) says, as plain values: what build-cfdi.ts writes. */
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

export interface CfdiInput {
  series?: string;
  folio?: string;
  /** Local wall-clock time of issue in the expedition place's zone, `YYYY-MM-DDTHH:mm:ss`. */
  issuedLocal: string;
  type: 'I' | 'E';
  paymentForm?: string;
  paymentMethod?: string;
  currency: string;
  currencyDecimals: number;
  exchangeRate?: Decimal;
  exportCode: string;
  expeditionPlace: string;
  globalInfo?: { periodicity: string; months: string; year: number };
  relatedCfdis?: { relationType: string; uuids: string[] };
  issuer: CfdiParty;
  receptor: CfdiReceptor;
  concepts: CfdiConceptInput[];
}
