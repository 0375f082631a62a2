import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildCfdi } from '../../../shared/domain/cfdi/build-cfdi.js';
import { checkCfdiAmounts } from '../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { sealCfdi } from '../../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../../shared/domain/cfdi/serialize-xml.js';
import { storedDocument, storedDocumentJson } from '../../../shared/invoices/stored-document.js';
import { dec } from '../../../shared/domain/money.js';
import { checkPayment, isCalendarDate, type PaidInvoiceFacts } from '../../../shared/payment-complements/check-payment.js';
import type { PaymentRequest } from '../../../shared/payment-complements/payment-request.js';
import { nextInstallment, planPaymentComplement, type PlannedInvoice } from '../../../shared/payment-complements/plan-payment-complement.js';
import { invoicePdfDataFromXml } from '../../../shared/pdf/invoice-pdf-data.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { testSigner } from '../../fixtures/cfdi/test-signer.js';
import { SAT_DIR, xsdInvalid } from '../../helpers/sat-tools.js';

const catalogs = satCatalogs();
const SAMPLE_XML = readFileSync(`${SAT_DIR}samples/cfdi40-ingreso-EKU9003173C9-timbrado.xml`, 'utf8');
// SAT's stamped sample (IVA 16 %, a discount; total 3327.01) as issued PPD.
const ppd = invoicePdfDataFromXml(SAMPLE_XML.replace('FormaPago="01"', 'FormaPago="99"').replace('MetodoPago="PUE"', 'MetodoPago="PPD"'), catalogs);
const pue = invoicePdfDataFromXml(SAMPLE_XML, catalogs);
const decimals = (currency: string) => catalogs.currencyDecimals(currency) ?? 2;
const ctx = { catalogs, nowLocal: '2025-03-10T12:00:00' };
const numbering = { folio: '7', issuedLocal: '2025-03-10T12:00:00' };

const payment = (over: Partial<PaymentRequest> = {}): PaymentRequest => ({ date: '2025-03-01T10:00:00', sat_payment_form: '03', currency: 'MXN', amount: 1000, ...over });
const facts = (amountPaid: string, data = ppd, equivalence?: string): PaidInvoiceFacts => ({
  uuid: data.stamp.uuid,
  data,
  amountPaid: dec(amountPaid),
  equivalence: equivalence === undefined ? undefined : dec(equivalence),
});
const planned = (amountPaid: string, balance: string, installment: number, asserted: Partial<PlannedInvoice> = {}): PlannedInvoice => ({
  ...facts(amountPaid),
  standing: { balance: dec(balance), installment },
  ...asserted,
});
const codes = (details: { field: string; code: string }[]) => details.map((d) => `${d.field} ${d.code}`);

describe('payment complement: rules and plan', () => {
  it("two installments: numbered 1 and 2, the second's ImpSaldoAnt the first's ImpSaldoInsoluto, valid for SAT's XSD and the Pagos self-check", async () => {
    const first = planPaymentComplement(payment({ amount: 1000 }), [planned('1000', ppd.total, 1)], decimals);
    if (!first.ok) throw new Error(JSON.stringify(first.details));
    expect(first.allocations[0]).to.deep.include({ installment: 1 });
    expect(first.allocations[0]!.remainingBalance.toFixed(2)).to.equal('2327.01');
    const second = planPaymentComplement(payment({ amount: 2327.01 }), [planned('2327.01', first.allocations[0]!.remainingBalance.toString(), 2)], decimals);
    if (!second.ok) throw new Error(JSON.stringify(second.details));

    const dir = mkdtempSync(join(tmpdir(), 'payment-plan-'));
    const xmls = [first, second].map((plan, i) => {
      const { comprobante } = buildCfdi({ ...plan.document, ...numbering });
      expect(checkCfdiAmounts(comprobante), `complement ${i + 1}`).to.deep.equal([]);
      sealCfdi(comprobante, testSigner());
      const xml = serializeXml(comprobante);
      writeFileSync(join(dir, `p${i}.xml`), xml);
      return xml;
    });
    expect(await xsdInvalid(xmls.map((_, i) => join(dir, `p${i}.xml`)))).to.equal('');
    expect(xmls[0]).to.contain('NumParcialidad="1" ImpSaldoAnt="3327.01" ImpPagado="1000.00" ImpSaldoInsoluto="2327.01" ObjetoImpDR="02"');
    expect(xmls[1]).to.contain('NumParcialidad="2" ImpSaldoAnt="2327.01" ImpPagado="2327.01" ImpSaldoInsoluto="0" ObjetoImpDR="02"');
    // The invoice's IVA in proportion to what is paid (1000 / 3327.01 of a 2868.11 base); the envelope of a type P.
    expect(xmls[0]).to.contain('<pago20:TrasladoDR BaseDR="862.07" ImpuestoDR="002" TipoFactorDR="Tasa" TasaOCuotaDR="0.160000" ImporteDR="137.93"/>');
    expect(xmls[0]).to.contain('UsoCFDI="CP01"').and.contain('Moneda="XXX"');
    expect(xmls[0]).not.to.contain('MetodoPago=').and.not.to.contain('FormaPago=');
    expect(xmls[0]).to.contain(`IdDocumento="${ppd.stamp.uuid}"`).and.contain('FechaPago="2025-03-01T10:00:00" FormaDePagoP="03" MonedaP="MXN" TipoCambioP="1" Monto="1000.00"');
  });

  it('survives the trip through jsonb exactly', () => {
    const plan = planPaymentComplement(payment({ amount: 123.45, exchange_rate: 1 }), [planned('123.45', '3327.01', 1)], decimals);
    if (!plan.ok) throw new Error('refused');
    const back = storedDocument(JSON.parse(storedDocumentJson({ timeZone: 'America/Mexico_City', input: plan.document }))).input as typeof plan.document;
    expect(serializeXml(buildCfdi({ ...back, ...numbering }).comprobante)).to.equal(serializeXml(buildCfdi({ ...plan.document, ...numbering }).comprobante));
  });

  it('a date alone is paid at noon; a USD payment of a MXN invoice converts by its equivalence', () => {
    const plan = planPaymentComplement(
      payment({ date: '2025-03-01', currency: 'USD', exchange_rate: 17.25, amount: 100 }),
      [{ ...planned('1725', '3327.01', 1), equivalence: dec('17.25') }],
      decimals,
    );
    if (!plan.ok) throw new Error(JSON.stringify(plan.details));
    const { comprobante } = buildCfdi({ ...plan.document, ...numbering });
    expect(checkCfdiAmounts(comprobante)).to.deep.equal([]);
    const xml = serializeXml(comprobante);
    expect(xml).to.contain('FechaPago="2025-03-01T12:00:00"').and.contain('MonedaP="USD" TipoCambioP="17.25" Monto="100.00"').and.contain('EquivalenciaDR="17.25"');
  });

  it("the caller's installment and previous balance are assertions: a mismatch is balance_changed, before the balance rule", () => {
    const plan = planPaymentComplement(payment(), [planned('3000', '2327.01', 2, { assertedInstallment: 1, assertedPreviousBalance: dec('3327.01') })], decimals);
    expect(plan.ok).to.equal(false);
    if (plan.ok) return;
    expect(plan.reason).to.equal('balance_changed');
    expect(codes(plan.details)).to.deep.equal(['related[0].installment balance_changed', 'related[0].previous_balance balance_changed']);
    const agreed = planPaymentComplement(payment(), [planned('1000', '2327.01', 2, { assertedInstallment: 2, assertedPreviousBalance: dec('2327.010') })], decimals);
    expect(agreed.ok).to.equal(true);
  });

  it('never pays more than the balance', () => {
    const over = planPaymentComplement(payment({ amount: 5000 }), [planned('2327.02', '2327.01', 2)], decimals);
    expect(over.ok || codes(over.details)).to.deep.equal(['related[0].amount_paid exceeds_balance']);
    const settled = planPaymentComplement(payment(), [planned('0.01', '0', 3)], decimals);
    expect(settled.ok || settled.details[0]!.message).to.match(/nothing is owed/);
  });

  it('numbers the installment after the live ones, reusing a number a cancelled complement left free', () => {
    expect(nextInstallment([])).to.equal(1);
    expect(nextInstallment([1, 2, 3])).to.equal(4);
    expect(nextInstallment([3, 1])).to.equal(2);
  });

  it('checks the payment and what the invoices are, every problem at once', () => {
    expect(checkPayment(payment(), [facts('1000')], ctx)).to.deep.equal([]);
    expect(codes(checkPayment(payment({ sat_payment_form: '99', currency: 'XXX', date: '2025-03-11' }), [facts('1000', pue)], ctx))).to.deep.equal([
      'payment.date in_the_future',
      'payment.sat_payment_form not_allowed',
      'payment.currency not_allowed',
      'related[0].uuid not_ppd',
    ]);
    expect(codes(checkPayment(payment({ sat_payment_form: '42', currency: 'ABC' }), [facts('1000')], ctx))).to.deep.equal([
      'payment.sat_payment_form invalid_value',
      'payment.currency invalid_value',
    ]);
    expect(codes(checkPayment(payment({ exchange_rate: 17, amount: 10.001 }), [facts('10.001')], ctx))).to.deep.equal([
      'payment.exchange_rate not_allowed',
      'payment.amount too_many_decimals',
      'related[0].amount_paid too_many_decimals',
    ]);
    // Issued 2025-02-19T08:32:29: the same day is fine as a date alone, not at an earlier hour.
    expect(checkPayment(payment({ date: '2025-02-19' }), [facts('1000')], ctx)).to.deep.equal([]);
    expect(codes(checkPayment(payment({ date: '2025-02-19T08:00:00' }), [facts('1000')], ctx))).to.deep.equal(['payment.date before_invoice']);
    expect(codes(checkPayment(payment({ amount: 999.99 }), [facts('1000')], ctx))).to.deep.equal(['payment.amount exceeds_payment']);
    expect(codes(checkPayment(payment({ currency: 'USD', exchange_rate: 17.25, amount: 100 }), [facts('1000'), facts('1', ppd, '17.25')], ctx))).to.deep.equal([
      'related[0].equivalence required',
    ]);
    expect(codes(checkPayment(payment(), [facts('1000', ppd, '2')], ctx))).to.deep.equal(['related[0].equivalence not_allowed']);
    // 1725 MXN over 17.25 MXN per USD is 100 USD (by SAT's lower limit, a hair under): it fits in 100.00.
    expect(checkPayment(payment({ currency: 'USD', exchange_rate: 17.25, amount: 100 }), [facts('1725', ppd, '17.25')], ctx)).to.deep.equal([]);
    const credit = invoicePdfDataFromXml(SAMPLE_XML.replace('TipoDeComprobante="I"', 'TipoDeComprobante="E"'), catalogs);
    expect(codes(checkPayment(payment(), [facts('1', credit)], ctx))).to.deep.equal(['related[0].uuid not_an_invoice']);
    const otherReceptor = invoicePdfDataFromXml(SAMPLE_XML.replace('MetodoPago="PUE"', 'MetodoPago="PPD"').replace('Rfc="MCI7306249Y1"', 'Rfc="URE180429TM6"'), catalogs);
    expect(codes(checkPayment(payment(), [facts('1'), facts('1', otherReceptor)], ctx))).to.deep.equal(['related[1].uuid other_receptor']);
  });

  it('knows a calendar date', () => {
    expect(['2025-02-28', '2024-02-29T23:59:59'].map(isCalendarDate)).to.deep.equal([true, true]);
    expect(['2025-02-29', '2025-13-01', '2025-01-01T24:00:00'].map(isCalendarDate)).to.deep.equal([false, false, false]);
  });
});
