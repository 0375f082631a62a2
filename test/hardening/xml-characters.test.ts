/**
 * Issue #28 item 3: characters XML 1.0 cannot hold (C0 controls, U+FFFE/U+FFFF, lone surrogates) are
 * refused at the door with the field named, as "|" is; and the fake PAC refuses a document holding one, as
 * SAT's parser does.
 */
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { buildCfdi } from '../../shared/domain/cfdi/build-cfdi.js';
import { sealCfdi } from '../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../shared/domain/cfdi/serialize-xml.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { PacRefused } from '../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { generateCfdiInput } from '../fixtures/cfdi/generate-cfdi-input.js';
import { testSigner } from '../fixtures/cfdi/test-signer.js';
import { sampleSale } from '../fixtures/sample-sale.js';
import { BUYER, confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { jobId } from '../../shared/platform/jobs.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';
import { rejection } from '../helpers/rejection.js';

const UNWRITABLE = { 'U+0001': '\u0001', 'U+0008': '\u0008', 'U+001B': '\u001B', 'U+FFFE': '\uFFFE', 'U+FFFF': '\uFFFF', 'U+D800': '\uD800' } as const;

describe('characters XML 1.0 cannot hold never reach a CFDI (issue #28)', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });
  const transactions = async () => (await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).count({ n: '*' }).first())?.n;
  const invoices = async (qrId: string) => (await harness().deps.db('invoices').where({ transaction_id: qrId }).count({ n: '*' }).first())?.n;
  const concepts = () => sampleSale('s', new Date()).operation_data;

  it('POST /v1/qrs: a concept description with U+0001 (or another) is a 400 naming the field, and nothing is recorded', async () => {
    const before = await transactions();
    for (const [name, char] of Object.entries(UNWRITABLE)) {
      const [first, ...rest] = concepts();
      const res = await postQr(account, qrBody(account.storeUid, { operation_data: [{ ...first!, description: `Magna${char} 10 L` }, ...rest] }));
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details, name).to.have.length(1);
      expect(res.body.error.details[0].field, name).to.equal('operation_data[0].description');
      expect(res.body.error.details[0].message, name).to.contain(name);
    }
    expect(await transactions()).to.equal(before);
  });

  it('POST /v1/qrs: a sale_id with U+0001, U+001D (a barcode scanner\'s GS) or "|" is a 400 invalid_for_cfdi naming the character, and nothing is recorded (issue #38)', async () => {
    const before = await transactions();
    const refused = {
      'U+0001 (START OF HEADING / SOH)': '\u0001',
      'U+001D (INFORMATION SEPARATOR THREE / GS)': '\u001D',
      '"|" (SAT\'s separator in the cadena original)': '|',
    };
    for (const [name, char] of Object.entries(refused)) {
      const res = await postQr(account, qrBody(account.storeUid, { sale_id: `0107501${char}10A-${Date.now()}` }));
      expectError(res, 400, 'validation_failed');
      expect(
        res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`),
        name,
      ).to.deep.equal(['sale_id:invalid_for_cfdi']);
      expect(res.body.error.details[0].message, name).to.contain(name).and.contain('NoIdentificacion');
    }
    expect(await transactions()).to.equal(before);
    // A tab is whitespace there, as in a sku: accepted.
    expect((await postQr(account, qrBody(account.storeUid, { sale_id: `A\tB-${Date.now()}` }))).status).to.equal(201);
  });

  it('the sku and a product of the catalog are checked the same way', async () => {
    const [first, ...rest] = concepts();
    const sku = await postQr(account, qrBody(account.storeUid, { operation_data: [{ ...first!, sku: 'MAG\u001B1' }, ...rest] }));
    expectError(sku, 400, 'validation_failed');
    expect(sku.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.deep.equal(['operation_data[0].sku:invalid_for_cfdi']);
    const product = await call('POST', `/v1/qrs/merchants/${account.merchantId}/products`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: [{ sku: 'P1', description: 'Agua\u0001', unitPrice: 10, satUnitKey: 'H87', satProductServiceKey: '50202301', satTaxObjectKey: '01' }],
    });
    expectError(product, 400, 'validation_failed');
    expect(product.body.error.details.map((d: { field: string }) => d.field)).to.include('[0].description');
    expect(await harness().deps.db('merchant_products').where({ merchant_id: account.merchantId })).to.have.length(0);
  });

  it('tab and line breaks stay accepted where they were: collapsed as SAT collapses them', async () => {
    const [first, ...rest] = concepts();
    const res = await postQr(account, qrBody(account.storeUid, { operation_data: [{ ...first!, description: 'Magna\t10 L\r\nbomba 3' }, ...rest] }));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.operation_data[0].description).to.equal('Magna\t10 L\r\nbomba 3');
  });

  it("the buyer's customer.name with U+001B or U+FFFE is a 400 naming the field, and no invoice is recorded", async () => {
    const link = await newQrLink(account);
    for (const name of ['ACME\u001B[2J HOLDING', 'ACME \uFFFE HOLDING']) {
      const res = await confirmReviewed(link, { name });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.deep.equal(['customer.name:invalid_for_cfdi']);
    }
    expect(await invoices(link.qrId)).to.equal('0');
    // A tab in the name is whitespace, as before: the preview takes it.
    const preview = await call('POST', '/v1/public/qrs/preview', { body: { v: link.v, t: link.t, m: link.m, customer: { ...BUYER, name: 'UNIVERSIDAD\tROBOTICA ESPAÑOLA' } } });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
  });

  it('a sale stored before the door refused such a character: its confirmation is refused at once as invoice_unbuildable, not retried (issue #38)', async () => {
    const link = await newQrLink(account);
    // As data from before the door checked it: a description with U+0001, stored.
    await harness().deps.db('qr_concepts').where({ transaction_id: link.qrId, position: 0 }).update({ description: 'Magna\u0001 10 L' });
    const events = await queueEvents('stamp');
    try {
      expect((await confirmReviewed(link)).status).to.equal(202);
      expect(await stamped(events, link.qrId)).to.include({ outcome: 'refused' });
    } finally {
      await events.close();
    }
    const invoice = await harness().deps.db('invoices').where({ transaction_id: link.qrId }).first('id', 'status', 'refusal');
    expect(invoice.status).to.equal('REFUSED');
    expect(invoice.refusal).to.include({ code: 'invoice_unbuildable' });
    expect(invoice.refusal.message).to.contain('cfdi:Concepto@Descripcion').and.contain('U+0001 (START OF HEADING / SOH)');
    // Refused in its stamp batch (issue #40) at the first attempt, with no job of its own to try again.
    const stampQueue = harness().producers.queue('stamp');
    expect((await stampQueue.getJob(jobId.stampInvoices(invoice.id as string)))!.attemptsMade, 'one attempt').to.equal(1);
    expect(await stampQueue.getJob(jobId.stampInvoice(invoice.id as string))).to.equal(undefined);
  });

  it('the fake PAC refuses a document that is not well-formed XML with 301, as SAT does, over HTTP', async () => {
    const { comprobante } = buildCfdi({ ...generateCfdiInput(7), issuedLocal: localDateTime(new Date(), 'America/Mexico_City') });
    sealCfdi(comprobante, testSigner());
    const xml = serializeXml(comprobante).replace(/Descripcion="/, 'Descripcion="\u0001');
    const pac = harness().pac;
    const client = swPacClient(pac.url, pac.token, 10_000, `${pac.url}/ConsultaCFDIService.svc`);
    const refused = await rejection(client.stamp(xml, {}), PacRefused);
    expect(refused.pacCode).to.equal('301');
    expect(refused.message).to.contain('XML mal formado');
    expect(pac.calls.at(-1)).to.deep.equal({ outcome: 'refused 301' });
  });
});
