import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { buildCfdi } from '../../../shared/domain/cfdi/build-cfdi.js';
import { checkCfdiAmounts } from '../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { planCreditNote, type CreditedInvoice } from '../../../shared/credit-notes/plan-credit-note.js';
import { storedDocument, storedDocumentJson } from '../../../shared/invoices/stored-document.js';
import { dec } from '../../../shared/domain/money.js';
import { invoicePdfDataFromXml } from '../../../shared/pdf/invoice-pdf-data.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { SAT_DIR } from '../../helpers/sat-tools.js';

const catalogs = satCatalogs();
// SAT's stamped sample: discounts, IVA transfers and ISR and IVA withholdings.
const sample = invoicePdfDataFromXml(readFileSync(`${SAT_DIR}samples/cfdi40-ingreso-EKU9003173C9-timbrado.xml`, 'utf8'), catalogs);
const decimals = (currency: string) => catalogs.currencyDecimals(currency);
const credited = (amount: string, alreadyCredited = '0'): CreditedInvoice => ({
  uuid: sample.stamp.uuid,
  data: sample,
  amount: dec(amount),
  alreadyCredited: dec(alreadyCredited),
});
const numbering = { folio: '1', issuedLocal: '2026-11-23T10:00:00' };

describe('credit note plan', () => {
  it('crediting the whole invoice gives back exactly its total, with its taxes and withholdings, and passes Anexo 20', () => {
    const plan = planCreditNote([credited(sample.total)], { form: '03' }, decimals);
    if (!plan.ok) throw new Error(JSON.stringify(plan.details));
    const { comprobante, totals } = buildCfdi({ ...plan.document, ...numbering });
    expect(totals.total.toFixed(2)).to.equal(sample.total);
    expect(plan.allocations[0]!.amount.toFixed(2)).to.equal(sample.total);
    expect(checkCfdiAmounts(comprobante)).to.deep.equal([]);
    expect(plan.document.concepts.every((c) => c.productServiceKey === '84111506' && c.unitKey === 'ACT')).to.equal(true);
    expect(plan.document.relatedCfdis).to.deep.equal({ relationType: '01', uuids: [sample.stamp.uuid] });
  });

  it('a part is scaled concept by concept and stays within Anexo 20, close to what was asked', () => {
    const plan = planCreditNote([credited('1000.00')], { form: '03' }, decimals);
    if (!plan.ok) throw new Error(JSON.stringify(plan.details));
    const { comprobante, totals } = buildCfdi({ ...plan.document, ...numbering });
    expect(checkCfdiAmounts(comprobante)).to.deep.equal([]);
    expect(totals.total.minus('1000.00').abs().toNumber()).to.be.at.most(0.05);
  });

  it('survives the trip through jsonb exactly', () => {
    const plan = planCreditNote([credited('123.45')], { form: '03' }, decimals);
    if (!plan.ok) throw new Error('refused');
    const back = storedDocument(JSON.parse(storedDocumentJson({ timeZone: 'America/Mexico_City', input: plan.document }))).input as typeof plan.document;
    expect(buildCfdi({ ...back, ...numbering }).totals.total.toFixed(6)).to.equal(buildCfdi({ ...plan.document, ...numbering }).totals.total.toFixed(6));
  });

  it('refuses more than is left to credit, and form 99', () => {
    const over = planCreditNote([credited('100.00', '3300.00')], { form: '03' }, decimals);
    expect(over.ok).to.equal(false);
    if (!over.ok) expect(over.details[0]).to.include({ field: 'related[0].amount', code: 'exceeds_invoice' });
    const porDefinir = planCreditNote([credited('1.00')], { form: '99' }, decimals);
    if (!porDefinir.ok) expect(porDefinir.details[0]).to.include({ field: 'sat_payment_form' });
    expect(porDefinir.ok).to.equal(false);
  });
});
