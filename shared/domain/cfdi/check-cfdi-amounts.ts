/**
 * Anexo 20's arithmetic on a built CFDI, read back from the values exactly as written (their decimals
 * set the tolerances). Run before sealing, so a document a PAC would refuse for rounding is never sent;
 * the fake PAC runs the same rules, as a real one does. Returns every finding, not the first. A type P
 * document (SubTotal and Total 0, Moneda XXX) passes the rules below as written; check-pagos20.ts adds
 * the Pagos 2.0 ones.
 */
import type { Decimal } from 'decimal.js';
import { Money } from '../money.js';
import { conceptAmountLimits, taxAmountLimits, withinLimits } from './anexo20-amounts.js';
import type { CfdiFinding } from './cfdi-finding.js';
import { checkPagos20 } from './check-pagos20.js';
import { attribute, children, descendants, type XmlElement } from './xml-element.js';

function written(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

function num(node: XmlElement, name: string): Decimal | undefined {
  const text = attribute(node, name);
  return text === undefined ? undefined : new Money(text);
}

function sum(values: Decimal[]): Decimal {
  return values.reduce((a, b) => a.plus(b), new Money(0));
}

export function checkCfdiAmounts(comprobante: XmlElement): CfdiFinding[] {
  const out: CfdiFinding[] = [];
  const cd = written(attribute(comprobante, 'SubTotal') ?? '0');
  const concepts = descendants(comprobante, ['cfdi:Conceptos', 'cfdi:Concepto']);

  concepts.forEach((c, i) => {
    const path = `Conceptos/Concepto[${i + 1}]`;
    const quantity = attribute(c, 'Cantidad') ?? '0';
    const unitPrice = attribute(c, 'ValorUnitario') ?? '0';
    const amount = attribute(c, 'Importe') ?? '0';
    const limits = conceptAmountLimits(new Money(quantity), written(quantity), new Money(unitPrice), written(unitPrice), written(amount));
    if (!withinLimits(new Money(amount), limits)) {
      out.push({
        code: 'concept_amount_out_of_limits',
        satCode: 'CFDI40167',
        path: `${path}/@Importe`,
        message: `Importe ${amount} is outside ${limits.low.toString()}–${limits.high.toString()} (Cantidad × ValorUnitario).`,
      });
    }
    for (const [kind, satCode] of [
      ['Traslado', 'CFDI40215'],
      ['Retencion', 'CFDI40221'],
    ] as const) {
      descendants(c, ['cfdi:Impuestos', `cfdi:${kind}${kind === 'Traslado' ? 's' : 'es'}`, `cfdi:${kind}`]).forEach((t, j) => {
        const base = attribute(t, 'Base') ?? '0';
        const rate = attribute(t, 'TasaOCuota');
        const taxAmount = attribute(t, 'Importe');
        if (rate === undefined || taxAmount === undefined) return;
        const taxLimits = taxAmountLimits(new Money(base), written(base), new Money(rate), written(taxAmount));
        if (!withinLimits(new Money(taxAmount), taxLimits)) {
          out.push({
            code: 'tax_amount_out_of_limits',
            satCode,
            path: `${path}/Impuestos/${kind}[${j + 1}]/@Importe`,
            message: `Importe ${taxAmount} is outside ${taxLimits.low.toString()}–${taxLimits.high.toString()} (Base × TasaOCuota).`,
          });
        }
      });
    }
  });

  const round = (value: Decimal) => value.toDecimalPlaces(cd);
  const subtotal = num(comprobante, 'SubTotal') ?? new Money(0);
  const expectedSubtotal = round(sum(concepts.map((c) => num(c, 'Importe') ?? new Money(0))));
  if (!subtotal.equals(expectedSubtotal)) {
    out.push({
      code: 'subtotal_mismatch',
      satCode: 'CFDI40108',
      path: '@SubTotal',
      message: `SubTotal must be ${expectedSubtotal.toFixed(cd)}, the sum of the concepts' Importe.`,
    });
  }
  const discount = num(comprobante, 'Descuento') ?? new Money(0);
  const expectedDiscount = round(sum(concepts.map((c) => num(c, 'Descuento') ?? new Money(0))));
  if (!discount.equals(expectedDiscount)) {
    out.push({
      code: 'discount_mismatch',
      satCode: 'CFDI40111',
      path: '@Descuento',
      message: `Descuento must be ${expectedDiscount.toFixed(cd)}, the sum of the concepts' Descuento.`,
    });
  }
  const taxes = children(comprobante, 'cfdi:Impuestos')[0];
  const transferred = taxes ? (num(taxes, 'TotalImpuestosTrasladados') ?? new Money(0)) : new Money(0);
  const withheld = taxes ? (num(taxes, 'TotalImpuestosRetenidos') ?? new Money(0)) : new Money(0);
  const total = num(comprobante, 'Total') ?? new Money(0);
  const expectedTotal = subtotal.minus(discount).plus(transferred).minus(withheld);
  if (!total.equals(expectedTotal)) {
    out.push({
      code: 'total_mismatch',
      satCode: 'CFDI40119',
      path: '@Total',
      message: `Total must be ${expectedTotal.toFixed(cd)} (SubTotal − Descuento + transferred − withheld taxes).`,
    });
  }
  if (taxes) {
    const docTransfers = descendants(taxes, ['cfdi:Traslados', 'cfdi:Traslado']).filter((t) => attribute(t, 'Importe') !== undefined);
    const expectedTransferred = round(sum(docTransfers.map((t) => num(t, 'Importe') ?? new Money(0))));
    if (docTransfers.length > 0 && !transferred.equals(expectedTransferred)) {
      out.push({
        code: 'transferred_total_mismatch',
        satCode: 'CFDI40197',
        path: 'Impuestos/@TotalImpuestosTrasladados',
        message: `TotalImpuestosTrasladados must be ${expectedTransferred.toFixed(cd)}.`,
      });
    }
    const docWithholdings = descendants(taxes, ['cfdi:Retenciones', 'cfdi:Retencion']);
    const expectedWithheld = round(sum(docWithholdings.map((t) => num(t, 'Importe') ?? new Money(0))));
    if (docWithholdings.length > 0 && !withheld.equals(expectedWithheld)) {
      out.push({
        code: 'withheld_total_mismatch',
        satCode: 'CFDI40193',
        path: 'Impuestos/@TotalImpuestosRetenidos',
        message: `TotalImpuestosRetenidos must be ${expectedWithheld.toFixed(cd)}.`,
      });
    }
  }
  out.push(...checkPagos20(comprobante));
  return out;
}
