/**
 * The CFDI a recorded sale becomes for one buyer: the sale's concepts and taxes as recorded, the
 * buyer as receptor, and the taxes that depend on the buyer. A RESICO issuer (regime 626) invoicing a
 * company withholds 1.25 % ISR on each taxed concept (LISR art. 113-J): the buyer sees it before confirming.
 */
import type { CfdiConceptInput, CfdiInput, CfdiTaxInput } from '../domain/cfdi/cfdi-input.js';
import { dec, Money } from '../domain/money.js';
import type { QrTransactionRecord } from '../repositories/qr-transactions.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import type { Customer } from './customer.js';
import { FOREIGN_RFC, GENERIC_RFC } from './check-customer.js';

export const RESICO_REGIME = '626';
export const RESICO_ISR_WITHHOLDING_RATE = '0.012500';

export interface SaleParties {
  issuer: { rfc: string; name: string; taxRegime: string };
  expeditionPlace: string;
  series?: string;
  folio: string;
  issuedLocal: string;
  /** The merchant's rule: whether the RESICO withholding below applies (on by default). */
  resicoWithholding: boolean;
}

function buyerWithholdings(parties: SaleParties, customer: Customer, base: CfdiConceptInput['amount'], cd: number): CfdiTaxInput[] {
  const company = customer.rfc.length === 12 && customer.rfc !== GENERIC_RFC && customer.rfc !== FOREIGN_RFC;
  if (!parties.resicoWithholding || parties.issuer.taxRegime !== RESICO_REGIME || !company) return [];
  return [{ type: 'Retencion', tax: '001', factor: 'Tasa', rate: RESICO_ISR_WITHHOLDING_RATE, base, amount: base.times(RESICO_ISR_WITHHOLDING_RATE).toDecimalPlaces(cd) }];
}

export function cfdiInputFromSale(record: QrTransactionRecord, customer: Customer, parties: SaleParties, catalogs: SatCatalogs): CfdiInput {
  const t = record.transaction;
  const cd = catalogs.currencyDecimals(t.currency) ?? 2;
  const concepts: CfdiConceptInput[] = record.concepts.map((c) => {
    const amount = dec(c.amount);
    const discount = c.discount === null ? undefined : dec(c.discount);
    const recorded: CfdiTaxInput[] = record.taxes
      .filter((x) => x.concept_position === c.position)
      .map((x) => ({
        type: x.type,
        tax: x.tax,
        factor: x.factor,
        rate: x.rate ?? undefined,
        base: dec(x.taxable_base),
        amount: x.amount === null ? undefined : dec(x.amount),
      }));
    const taxes = c.sat_tax_object_key === '02' ? [...recorded, ...buyerWithholdings(parties, customer, discount ? amount.minus(discount) : amount, cd)] : recorded;
    return {
      productServiceKey: c.sat_product_service_key,
      sku: c.sku ?? undefined,
      quantity: dec(c.quantity),
      unitKey: c.sat_unit_key,
      description: c.description,
      unitPrice: dec(c.unit_price),
      amount,
      discount,
      taxObject: c.sat_tax_object_key,
      taxes,
    };
  });
  const foreign = customer.rfc === FOREIGN_RFC;
  return {
    series: parties.series,
    folio: parties.folio,
    issuedLocal: parties.issuedLocal,
    type: t.type_of_receipt === 'E' ? 'E' : 'I',
    paymentForm: t.sat_payment_form,
    paymentMethod: t.sat_payment_method,
    currency: t.currency,
    currencyDecimals: cd,
    exchangeRate: t.exchange_rate === null ? undefined : new Money(t.exchange_rate),
    exportCode: t.export_code,
    expeditionPlace: parties.expeditionPlace,
    globalInfo: t.global_info ? { periodicity: t.global_info.periodicity, months: t.global_info.months, year: t.global_info.year } : undefined,
    relatedCfdis: t.related_cfdis ? { relationType: t.related_cfdis.tipo_relacion, uuids: t.related_cfdis.cfdis } : undefined,
    issuer: parties.issuer,
    receptor: {
      rfc: customer.rfc,
      name: customer.name,
      taxRegime: customer.tax_regime,
      postalCode: customer.postal_code,
      cfdiUse: customer.cfdi_use,
      taxResidence: foreign ? customer.tax_residence : undefined,
    },
    concepts,
  };
}
