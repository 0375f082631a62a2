import { expect } from 'chai';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { checkCfdiAmounts } from '../../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { attribute, child, descendants, setAttribute, type XmlElement } from '../../../../shared/domain/cfdi/xml-element.js';
import { generatePaymentInput } from './generate-payment-input.js';

// Seed 1: a USD payment of three MXN invoices (EquivalenciaDR 17.4521), IVA 16 %, IEPS and an ISR withholding.
const USD_SEED = 1;
// Seed 0: an MXN payment.
const MXN_SEED = 0;

function built(seed = USD_SEED): XmlElement {
  return buildCfdi(generatePaymentInput(seed)).comprobante;
}

const pagos = (doc: XmlElement) => descendants(doc, ['cfdi:Complemento', 'pago20:Pagos'])[0]!;
const pago = (doc: XmlElement) => descendants(pagos(doc), ['pago20:Pago'])[0]!;
const documents = (doc: XmlElement) => descendants(pago(doc), ['pago20:DoctoRelacionado']);
const findings = (doc: XmlElement) => checkCfdiAmounts(doc).map((f) => [f.code, f.satCode]);
const satCodes = (doc: XmlElement) => checkCfdiAmounts(doc).map((f) => f.satCode);

function removeAttribute(node: XmlElement, name: string): void {
  node.attributes = node.attributes.filter(([key]) => key !== name);
}

describe("checkCfdiAmounts on type P (Pagos 2.0, SAT's CRP rules)", () => {
  it('finds nothing wrong in built documents, in USD and in MXN', () => {
    expect(attribute(pago(built()), 'MonedaP')).to.equal('USD');
    expect(attribute(pago(built(MXN_SEED)), 'MonedaP')).to.equal('MXN');
    expect(checkCfdiAmounts(built())).to.deep.equal([]);
    expect(checkCfdiAmounts(built(MXN_SEED))).to.deep.equal([]);
  });

  it('reports the envelope Anexo 20 fixes for type P: SubTotal and Total 0, Moneda XXX, no FormaPago', () => {
    const doc = built();
    setAttribute(doc, 'SubTotal', '1');
    setAttribute(doc, 'Moneda', 'MXN');
    setAttribute(doc, 'FormaPago', '01');
    expect(findings(doc)).to.deep.include.members([
      ['payment_cfdi_amount_not_zero', 'CRP20103'],
      ['payment_cfdi_currency', 'CRP20104'],
      ['payment_cfdi_attribute_not_allowed', 'CRP20105'],
    ]);
  });

  it('reports an ImpSaldoInsoluto that is not ImpSaldoAnt − ImpPagado, or negative, as CRP20244', () => {
    const doc = built();
    const [first, second] = documents(doc);
    setAttribute(first!, 'ImpSaldoInsoluto', '1.00');
    setAttribute(second!, 'ImpSaldoAnt', '1.00');
    setAttribute(second!, 'ImpSaldoInsoluto', '-28598.38');
    const report = checkCfdiAmounts(doc)
      .filter((f) => f.satCode === 'CRP20244')
      .map((f) => f.path);
    expect(report).to.deep.equal(['Complemento/Pagos/Pago[1]/DoctoRelacionado[1]/@ImpSaldoInsoluto', 'Complemento/Pagos/Pago[1]/DoctoRelacionado[2]/@ImpSaldoInsoluto']);
  });

  it('reports a Monto below what the documents are paid, converted with EquivalenciaDR (CRP20217), and MontoTotalPagos then off (CRP20211)', () => {
    const doc = built();
    setAttribute(pago(doc), 'Monto', '2000.00');
    expect(findings(doc)).to.deep.include.members([
      ['payment_amount_below_paid', 'CRP20217'],
      ['payment_totals_mismatch', 'CRP20211'],
    ]);
  });

  it('requires EquivalenciaDR across currencies (CRP20237) and "1" within one (CRP20238)', () => {
    const usd = built();
    removeAttribute(documents(usd)[0]!, 'EquivalenciaDR');
    expect(satCodes(usd)).to.include('CRP20237');
    const mxn = built(MXN_SEED);
    const sameCurrency = documents(mxn).find((d) => attribute(d, 'MonedaDR') === 'MXN')!;
    setAttribute(sameCurrency, 'EquivalenciaDR', '1.0');
    expect(satCodes(mxn)).to.include('CRP20238');
  });

  it('requires TipoCambioP for a foreign currency (CRP20214) and "1" for MXN (CRP20215)', () => {
    const usd = built();
    removeAttribute(pago(usd), 'TipoCambioP');
    expect(satCodes(usd)).to.include('CRP20214');
    const mxn = built(MXN_SEED);
    setAttribute(pago(mxn), 'TipoCambioP', '1.000000');
    expect(satCodes(mxn)).to.include('CRP20215');
  });

  it('reports an ImporteDR outside BaseDR × TasaOCuotaDR (CRP20261) and ImpuestosP no longer its sum (CRP20274)', () => {
    const doc = built();
    const transfer = descendants(documents(doc)[0]!, ['pago20:ImpuestosDR', 'pago20:TrasladosDR', 'pago20:TrasladoDR'])[0]!;
    setAttribute(transfer, 'ImporteDR', '209.00');
    expect(findings(doc)).to.deep.include.members([
      ['tax_amount_out_of_limits', 'CRP20261'],
      ['payment_tax_mismatch', 'CRP20274'],
    ]);
  });

  it('ties ObjetoImpDR to ImpuestosDR: 02 needs it (CRP20246), 01 forbids it (CRP20247)', () => {
    const doc = built();
    const [first, second] = documents(doc);
    setAttribute(first!, 'ObjetoImpDR', '01');
    second!.children = second!.children.filter((c) => c.name !== 'pago20:ImpuestosDR');
    expect(satCodes(doc)).to.include.members(['CRP20247', 'CRP20246']);
  });

  it("reports a BaseP that is not the documents' BaseDR over EquivalenciaDR (CRP20268), and Totales off (CRP20204)", () => {
    const doc = built();
    const transferP = descendants(pago(doc), ['pago20:ImpuestosP', 'pago20:TrasladosP', 'pago20:TrasladoP']).find((t) => attribute(t, 'ImpuestoP') === '002')!;
    setAttribute(transferP, 'BaseP', '1795.030084');
    expect(findings(doc)).to.deep.include.members([
      ['payment_tax_mismatch', 'CRP20268'],
      ['payment_totals_mismatch', 'CRP20204'],
    ]);
  });

  it('accepts a BaseP truncated or written with fewer decimals, as long as Totales follow what is written', () => {
    const doc = built();
    const transferP = descendants(pago(doc), ['pago20:ImpuestosP', 'pago20:TrasladosP', 'pago20:TrasladoP']).find((t) => attribute(t, 'ImpuestoP') === '002')!;
    expect(attribute(transferP, 'BaseP')).to.equal('1795.020084');
    setAttribute(transferP, 'BaseP', '1795.02');
    expect(checkCfdiAmounts(doc)).to.deep.equal([]);
  });

  it('reports a Totales amount that is not ImpuestosP × TipoCambioP rounded (CRP20205), or a total no Pago supports (CRP20210)', () => {
    const doc = built();
    const totales = child(pagos(doc), 'pago20:Totales')!;
    setAttribute(totales, 'TotalTrasladosImpuestoIVA16', '5012.31');
    setAttribute(totales, 'TotalTrasladosBaseIVAExento', '10.00');
    expect(findings(doc)).to.deep.include.members([
      ['payment_totals_mismatch', 'CRP20205'],
      ['payment_totals_mismatch', 'CRP20210'],
    ]);
  });
});

describe('buildCfdi for type P refuses what it cannot write', () => {
  it('a document in another currency without EquivalenciaDR, a foreign payment without TipoCambioP', () => {
    const input = generatePaymentInput(USD_SEED);
    const payment = input.payments[0]!;
    expect(() => buildCfdi({ ...input, payments: [{ ...payment, documents: [{ ...payment.documents[0]!, equivalence: undefined }] }] })).to.throw(RangeError, /EquivalenciaDR/);
    expect(() => buildCfdi({ ...input, payments: [{ ...payment, exchangeRate: undefined }] })).to.throw(RangeError, /TipoCambioP/);
  });
});
