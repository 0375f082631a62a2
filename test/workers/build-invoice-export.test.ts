import type { Job } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import type { ZipBuildDeps } from '../../shared/books/invoice-zip.js';
import { zipEntryName } from '../../shared/books/invoice-zip.js';
import { newId } from '../../shared/platform/ids.js';
import { jobId } from '../../shared/platform/jobs.js';
import type { InvoiceExportPayload } from '../../shared/platform/jobs.js';
import { insertInvoiceExport } from '../../shared/repositories/invoice-exports.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { buildInvoiceExportJob, sweepInvoiceExportsJob } from '../../workers/build-invoice-export.js';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

/** The build job's own outcomes (issue #32), its handler called directly: no worker races it for the export. */
describe('build-invoice-export', function () {
  this.timeout(120_000);
  let account: BootstrapResult;
  const db = () => harness().deps.db;

  before(async () => {
    account = await harness().bootstrap();
    const events = await queueEvents('stamp');
    try {
      const link = await newQrLink(account);
      expect((await confirmReviewed(link)).status).to.equal(202);
      await stamped(events, link.qrId);
    } finally {
      await events.close();
    }
  });

  const deps = (files = harness().deps.files): ZipBuildDeps => ({ db: db(), files, catalogs: satCatalogs(), publicBaseUrl: harness().deps.config.publicBaseUrl });

  async function newExport(): Promise<string> {
    const { row } = await insertInvoiceExport(db(), {
      id: newId('invoiceExport'),
      accountId: account.accountId,
      reader: { merchantId: account.merchantId },
      scope: { merchantIds: [account.merchantId] },
      filters: { statuses: ['ACTIVE'] },
      includePdf: false,
      idempotencyKey: undefined,
      fingerprint: 'f',
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    return row.id;
  }

  const job = (exportId: string, attemptsMade: number) => ({ data: { exportId }, attemptsMade, opts: { attempts: 3 } }) as unknown as Job<InvoiceExportPayload>;
  const state = async (exportId: string) => (await call('GET', `/v1/qrs/invoices/exports/${exportId}`, { headers: { 'X-API-Key': account.apiKey } })).body;

  it('builds once: a second run of a READY export does nothing', async () => {
    const id = await newExport();
    expect(await buildInvoiceExportJob(deps(), job(id, 0))).to.deep.include({ outcome: 'ready', files: 1 });
    expect(await buildInvoiceExportJob(deps(), job(id, 0))).to.deep.equal({ outcome: 'not-running' });
    expect(await state(id)).to.include({ status: 'READY', files_done: 1, files_total: 1 });
  });

  it('a stamped XML missing from the store fails the attempt, and the last attempt leaves the export FAILED with no link', async () => {
    const id = await newExport();
    const lost = { ...harness().deps.files, get: () => Promise.resolve(undefined) };
    const first = await buildInvoiceExportJob(deps(lost), job(id, 0)).catch((e: unknown) => e);
    expect(first).to.be.instanceOf(Error);
    expect(await state(id)).to.include({ status: 'RUNNING', download_url: null });
    const last = await buildInvoiceExportJob(deps(lost), job(id, 2)).catch((e: unknown) => e);
    expect(last).to.be.instanceOf(Error);
    expect(await state(id)).to.include({ status: 'FAILED', download_url: null });
    expect((await db()('invoice_exports').where({ id }).first('failure')).failure).to.match(/missing from the file store/);
  });

  it('the hourly sweep queues an export whose job was lost, and it gets built', async () => {
    const id = await newExport(); // recorded with no job, as after a Redis that lost its data
    const events = await queueEvents('exports');
    try {
      await sweepInvoiceExportsJob(deps(), harness().producers);
      const queued = await harness().producers.queue('exports').getJob(jobId.buildInvoiceExport(id));
      expect(queued, 'queued again').to.not.equal(undefined);
      await queued!.waitUntilFinished(events, 60_000);
    } finally {
      await events.close();
    }
    expect(await state(id)).to.include({ status: 'READY', files_done: 1 });
  });

  it('names each file as accountants file them, with nothing a path could take', () => {
    const row = { emitter_rfc: 'EKU9003173C9', series: 'A', folio: '1042', uuid: '6F1B2C3D-0000-4000-8000-000000000001' };
    expect(zipEntryName(row, 'xml')).to.equal('EKU9003173C9_A1042_6F1B2C3D-0000-4000-8000-000000000001.xml');
    expect(zipEntryName({ ...row, series: null }, 'pdf')).to.equal('EKU9003173C9_1042_6F1B2C3D-0000-4000-8000-000000000001.pdf');
    expect(zipEntryName({ ...row, series: '../x\n' }, 'xml')).to.equal('EKU9003173C9_..-x-1042_6F1B2C3D-0000-4000-8000-000000000001.xml');
    // Invisible format characters (a right-to-left override, a zero-width joiner, a BOM) and line separators (issue #39).
    expect(zipEntryName({ ...row, series: 'A\u202Egpj.exe\u200D\uFEFF\u2028' }, 'xml')).to.equal('EKU9003173C9_A-gpj.exe---1042_6F1B2C3D-0000-4000-8000-000000000001.xml');
    expect(zipEntryName({ ...row, series: 'ÑÁ' }, 'xml')).to.equal('EKU9003173C9_ÑÁ1042_6F1B2C3D-0000-4000-8000-000000000001.xml');
  });
});
