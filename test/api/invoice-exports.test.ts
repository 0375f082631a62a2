import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/webhook-receiver.js';
import { sweepInvoiceExports } from '../../shared/books/invoice-zip.js';
import { jobId } from '../../shared/platform/jobs.js';
import { BUYER, confirmReviewed, newQrLink, queueEventsOf, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { xsdInvalid } from '../helpers/sat-tools.js';
import { call, expectError } from '../helpers/http.js';

const run = promisify(execFile);

interface InvoiceFacts {
  id: string;
  uuid: string;
  series: string | null;
  folio: string;
  xml_file_key: string;
}

describe("the month's XMLs in one download: POST /v1/qrs/invoices/exports (issue #32)", function () {
  this.timeout(240_000);
  let a: BootstrapResult;
  let b: BootstrapResult;
  let events: Record<'stamp' | 'exports', QueueEvents>;
  let closeEvents: () => Promise<void>;
  let receiver: FakeWebhookReceiver;
  let dir: string;
  let invoices: InvoiceFacts[];

  const db = () => harness().deps.db;
  const key = (account: BootstrapResult) => ({ 'X-API-Key': account.apiKey });
  const bearer = (account: BootstrapResult) => ({ Authorization: `Bearer ${account.accessToken}` });
  const post = (body: unknown, headers: Record<string, string>) => call('POST', '/v1/qrs/invoices/exports', { headers, body });

  async function confirmed(link: QrLink): Promise<InvoiceFacts> {
    const res = await confirmReviewed(link, BUYER);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    await stamped(events.stamp, link.qrId);
    return (await db()('invoices').where({ transaction_id: link.qrId }).whereNot({ status: 'REFUSED' }).first('id', 'uuid', 'series', 'folio', 'xml_file_key')) as InvoiceFacts;
  }

  /** Waits for the export's job itself (no polling), then reads the export. */
  async function built(exportId: string, headers: Record<string, string>) {
    const job = await harness().producers.queue('exports').getJob(jobId.buildInvoiceExport(exportId));
    expect(job, 'the build job was queued').to.not.equal(undefined);
    await job!.waitUntilFinished(events.exports, 120_000);
    const res = await call('GET', `/v1/qrs/invoices/exports/${exportId}`, { headers });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Record<string, unknown> & { download_url: string; status: string };
  }

  async function download(url: string): Promise<{ status: number; path: string; type: string | null }> {
    const res = await fetch(url.replace(harness().deps.config.publicBaseUrl, harness().baseUrl));
    const path = join(dir, `${randomUUID()}.zip`);
    await writeFile(path, Buffer.from(await res.arrayBuffer()));
    return { status: res.status, path, type: res.headers.get('content-type') };
  }

  const names = async (path: string) => (await run('zipinfo', ['-1', path])).stdout.trim().split('\n').sort();
  const entry = async (path: string, name: string) => (await run('unzip', ['-p', path, name], { encoding: 'buffer', maxBuffer: 16 << 20 })).stdout;
  const expectedName = (i: InvoiceFacts, kind: 'xml' | 'pdf') => `EKU9003173C9_${i.series ?? ''}${i.folio}_${i.uuid}.${kind}`;

  before(async () => {
    [a, b] = [await harness().bootstrap(), await harness().bootstrap()];
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'exports'));
    receiver = await startFakeWebhookReceiver();
    dir = await mkdtemp(join(tmpdir(), 'invoice-exports-'));
    const hook = await call('POST', '/v1/webhooks/endpoints', { headers: bearer(a), body: { url: receiver.url, events: ['export.ready'] } });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    // A mixed set: three invoices of A (one of them cancelled below), one of B.
    invoices = [await confirmed(await newQrLink(a)), await confirmed(await newQrLink(a)), await confirmed(await newQrLink(a))];
    await db()('invoices').where({ id: invoices[2]!.id }).update({ status: 'CANCELLED' });
    await confirmed(await newQrLink(b));
  });
  after(async () => {
    await closeEvents();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 202 with a link to follow, builds the ZIP in a job, and the signed link downloads every stamped XML byte for byte', async () => {
    const res = await post({}, key(a));
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ status: 'PENDING', include_pdf: false, files_done: 0, files_total: null, download_url: null });
    expect(res.body.merchant_ids).to.deep.equal([a.merchantId]);
    expect(res.headers.get('location')).to.equal(`/v1/qrs/invoices/exports/${res.body.export_id}`);

    const done = await built(res.body.export_id as string, key(a));
    expect(done).to.include({ status: 'READY', files_done: 3, files_total: 3 });
    expect(done.size_bytes).to.be.a('number').above(0);
    expect(done.download_url).to.match(/\/v1\/public\/exports\/exp_[A-Za-z0-9_-]{22}\.zip\?exp=\d+&sig=/);

    const zip = await download(done.download_url);
    expect(zip.status).to.equal(200);
    expect(zip.type).to.equal('application/zip');
    expect((await run('unzip', ['-t', zip.path])).stdout).to.contain('No errors detected');
    expect(await names(zip.path)).to.deep.equal([...invoices.map((i) => expectedName(i, 'xml')), 'manifest.csv'].sort());
    // The manifest says what each file is: the cancelled CFDI is marked (issue #39).
    const manifest = (await entry(zip.path, 'manifest.csv')).toString('utf8');
    expect(manifest.startsWith('\uFEFFfile,uuid,cfdi_type,status,cancelled_at,total,pdf,acuse\r\n')).to.equal(true);
    const lines = manifest
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(lines.map(([file, uuid, , status]) => [file, uuid, status]).sort()).to.deep.equal(
      invoices.map((i, n) => [expectedName(i, 'xml'), i.uuid, n === 2 ? 'CANCELLED' : 'ACTIVE']).sort(),
    );
    for (const invoice of invoices) {
      const stored = (await harness().deps.files.get(invoice.xml_file_key))!.data;
      expect(Buffer.compare(await entry(zip.path, expectedName(invoice, 'xml')), stored), invoice.uuid).to.equal(0);
    }
    // And each extracted file is a CFDI 4.0 with its stamp, as SAT's schemas say.
    const extracted = join(dir, 'extracted');
    await run('unzip', ['-q', '-d', extracted, zip.path]);
    expect(await xsdInvalid(invoices.map((i) => join(extracted, expectedName(i, 'xml'))))).to.equal('');

    const event = (await db()('webhook_events').where({ type: 'export.ready' }).whereRaw("payload->'data'->>'export_id' = ?", [res.body.export_id]).first()) as
      { account_id: string; payload: { data: Record<string, unknown> } } | undefined;
    expect(event?.account_id).to.equal(a.accountId);
    expect(event?.payload.data).to.include({ export_id: res.body.export_id, status: 'READY', files: 3 });
  });

  it('applies the same filters as the CSV export, and puts each PDF beside its XML when asked', async () => {
    const res = await post({ status: 'CANCELLED', include_pdf: true }, bearer(a));
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const done = await built(res.body.export_id as string, bearer(a));
    expect(done).to.include({ status: 'READY', files_done: 2, files_total: 2, include_pdf: true });
    const zip = await download(done.download_url);
    expect((await run('unzip', ['-t', zip.path])).stdout).to.contain('No errors detected');
    const cancelled = invoices[2]!;
    expect(await names(zip.path)).to.deep.equal([expectedName(cancelled, 'pdf'), expectedName(cancelled, 'xml'), 'manifest.csv']);
    expect((await entry(zip.path, expectedName(cancelled, 'pdf'))).subarray(0, 5).toString()).to.equal('%PDF-');
    // The PDF was rendered on first ask and kept.
    expect((await db()('invoices').where({ id: cancelled.id }).first('pdf_file_key')).pdf_file_key).to.be.a('string');
  });

  it("serves one export's link at most EXPORT_DOWNLOADS_PER_MINUTE times a minute (429 with Retry-After), however many ask (issue #39)", async () => {
    const res = await post({ created_from: '2026-01-01' }, key(a));
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const done = await built(res.body.export_id as string, key(a));
    const url = done.download_url.replace(harness().deps.config.publicBaseUrl, harness().baseUrl);
    const limit = harness().deps.config.exportDownloadsPerMinute;
    const answers = [];
    for (let i = 0; i <= limit; i++) {
      const got = await fetch(url);
      await got.arrayBuffer();
      answers.push({ status: got.status, retryAfter: got.headers.get('retry-after') });
    }
    expect(answers.slice(0, limit).map((x) => x.status)).to.deep.equal(Array<number>(limit).fill(200));
    expect(answers[limit]!.status).to.equal(429);
    // Until the sliding window falls back under the limit: 1 to 120 s (api/middleware/rate-limit.ts).
    expect(Number(answers[limit]!.retryAfter)).to.be.within(1, 120);
  });

  it('says the period and filters of each export, lists the kept ones, and caps the exports an account builds and keeps at once (issue #39)', async () => {
    const c = await harness().bootstrap('export limits');
    const asked = await post({ created_from: '2026-11-01', created_to: '2026-11-30', cfdi_type: 'I' }, bearer(c));
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    // Mexico City's clocks: the 1st of November at 06:00Z, up to the 1st of December (exclusive).
    expect(asked.body.period).to.deep.equal({ from: '2026-11-01T06:00:00.000Z', to: '2026-12-01T06:00:00.000Z' });
    expect(asked.body.filters).to.include({ cfdi_type: 'I', receptor_rfc: null });
    expect(asked.body.filters.status).to.include('ACTIVE');
    const listed = await call('GET', '/v1/qrs/invoices/exports', { headers: bearer(c) });
    expect(listed.status).to.equal(200);
    expect(listed.body.content.map((e: { export_id: string }) => e.export_id)).to.deep.equal([asked.body.export_id]);
    expect((await call('GET', '/v1/qrs/invoices/exports', { headers: bearer(a) })).body.content.map((e: { export_id: string }) => e.export_id)).to.not.include(
      asked.body.export_id,
    );

    // Building at once: at most EXPORTS_IN_PROGRESS_PER_ACCOUNT, however many ask at the same moment (the
    // exports queue paused, so none is built meanwhile: this account has no CFDI, a build takes milliseconds).
    const limit = harness().deps.config.exportsInProgressPerAccount;
    await built(asked.body.export_id as string, bearer(c));
    await db()('invoice_exports').where({ account_id: c.accountId }).update({ status: 'RUNNING' });
    const exportsQueue = harness().producers.queue('exports');
    await exportsQueue.pause();
    let burst;
    try {
      burst = await Promise.all(Array.from({ length: 5 }, () => post({ created_from: '2026-11-01' }, bearer(c))));
    } finally {
      await exportsQueue.resume();
    }
    expect(burst.filter((r) => r.status === 202)).to.have.length(limit - 1);
    const refused = burst.filter((r) => r.status === 429);
    expect(refused).to.have.length(5 - (limit - 1));
    expectError(refused[0]!, 429, 'export_limit_reached');
    expect(refused[0]!.headers.get('retry-after')).to.equal('60');
    // A replay of a recorded one is never refused.
    const key = randomUUID();
    await db()('invoice_exports').where({ account_id: c.accountId }).update({ status: 'READY' });
    const first = await post({ created_from: '2026-10-01' }, { ...bearer(c), 'Idempotency-Key': key });
    expect(first.status).to.equal(202);
    await db()('invoice_exports').where({ account_id: c.accountId }).update({ status: 'RUNNING' });
    expect((await post({ created_from: '2026-10-01' }, { ...bearer(c), 'Idempotency-Key': key })).body.export_id).to.equal(first.body.export_id);
    // Kept at once: at most EXPORTS_KEPT_PER_ACCOUNT.
    await db()('invoice_exports').where({ account_id: c.accountId }).update({ status: 'READY' });
    const kept = Number((await db()('invoice_exports').where({ account_id: c.accountId }).count({ n: '*' }).first())?.n);
    const room = harness().deps.config.exportsKeptPerAccount - kept;
    for (let i = 0; i < room; i++) {
      expect((await post({ created_from: '2026-09-01' }, bearer(c))).status).to.equal(202);
      await db()('invoice_exports').where({ account_id: c.accountId }).update({ status: 'READY' });
    }
    const full = await post({ created_from: '2026-09-01' }, bearer(c));
    expectError(full, 429, 'export_limit_reached');
    expect(full.headers.get('retry-after')).to.equal('3600');
    await db()('invoice_exports').where({ account_id: c.accountId }).delete();
  });

  it('replays the same export for the same Idempotency-Key, and refuses the key with another body', async () => {
    const idem = randomUUID();
    const first = await post({ cfdi_type: 'I' }, { ...key(a), 'Idempotency-Key': idem });
    const again = await post({ cfdi_type: 'I' }, { ...key(a), 'Idempotency-Key': idem });
    expect(first.status).to.equal(202);
    expect(again.status).to.equal(202);
    expect(again.body.export_id).to.equal(first.body.export_id);
    expectError(await post({ cfdi_type: 'E' }, { ...key(a), 'Idempotency-Key': idem }), 409, 'idempotency_key_reused');
    // Another owner's same key is its own.
    const other = await post({ cfdi_type: 'I' }, { ...key(b), 'Idempotency-Key': idem });
    expect(other.body.export_id).to.not.equal(first.body.export_id);
    await built(first.body.export_id as string, key(a));
    await built(other.body.export_id as string, key(b));
    expect(await db()('invoice_exports').where({ id: first.body.export_id }).first('status')).to.deep.equal({ status: 'READY' });
  });

  it("keeps another merchant's export out of reach (404), and refuses a tampered or expired link", async () => {
    const res = await post({}, key(a));
    const done = await built(res.body.export_id as string, key(a));
    expectError(await call('GET', `/v1/qrs/invoices/exports/${res.body.export_id}`, { headers: key(b) }), 404, 'export_not_found');
    expectError(await call('GET', `/v1/qrs/invoices/exports/${res.body.export_id}`, { headers: bearer(b) }), 404, 'export_not_found');
    expect((await call('GET', `/v1/qrs/invoices/exports/${res.body.export_id}`, { headers: bearer(a) })).status).to.equal(200);
    expectError(await call('GET', '/v1/qrs/invoices/exports/exp_nope', { headers: key(a) }), 404, 'export_not_found');

    const url = new URL(done.download_url);
    const path = `${url.pathname}${url.search}`;
    const sig = url.searchParams.get('sig')!;
    const tampered = [
      path.replace(`sig=${sig}`, `sig=${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`),
      path.replace(/exp=(\d+)/, (_m, exp: string) => `exp=${Number(exp) + 3600}`),
      path.replace(res.body.export_id as string, `exp_${'A'.repeat(22)}`),
      url.pathname,
    ];
    for (const p of tampered) expectError(await call('GET', p), 403, 'invalid_signature');
    // A genuine link past its expiry: signed with the service's key for a moment gone.
    const { exportDownloadUrl } = await import('../../shared/books/export-links.js');
    const old = new URL(exportDownloadUrl('', res.body.export_id as string, harness().deps.config.urlSigningKey, new Date(), 60, new Date(Date.now() - 3600_000)), 'http://x');
    expectError(await call('GET', `${old.pathname}${old.search}`), 410, 'link_expired');

    // Past its keeping time the sweep removes the row and the file: the link answers 410, the export 404.
    await db()('invoice_exports')
      .where({ id: res.body.export_id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect(await sweepInvoiceExports(harness().deps)).to.be.at.least(1);
    expectError(await call('GET', path), 410, 'export_removed');
    expectError(await call('GET', `/v1/qrs/invoices/exports/${res.body.export_id}`, { headers: key(a) }), 404, 'export_not_found');
  });

  it('answers malformed filters, bodies and keys with a 400 error object naming each', async () => {
    const fields = async (body: unknown, headers: Record<string, string> = key(a)) => {
      const res = await post(body, headers);
      expectError(res, 400, 'validation_failed');
      return (res.body.error.details as { field: string }[]).map((d) => d.field).sort();
    };
    expect(await fields({ cfdi_type: 'X', uuid: 'nope', folio: '-1' })).to.deep.equal(['cfdi_type', 'folio', 'uuid']);
    expect(await fields({ created_from: '2026-02-30' })).to.deep.equal(['created_from']);
    expect(await fields({ created_from: '2026-11-02', created_to: '2026-11-01' })).to.deep.equal(['created_to']);
    expect(await fields({ include_pdf: 'yes' })).to.deep.equal(['include_pdf']);
    expect(await fields({ format: 'csv' })).to.have.length(1);
    expect(await fields({}, { ...key(a), 'Idempotency-Key': 'not-a-uuid' })).to.deep.equal(['Idempotency-Key']);
    expectError(await post({ merchant_id: b.merchantId }, bearer(a)), 404, 'merchant_not_found');
    expectError(await post({}, {}), 401, 'unauthorized');
  });
});
