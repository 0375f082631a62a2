import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { EXPORT_BATCH, invoiceExportStream } from '../../api/books/export-invoices.js';
import { EXPORTED_BY_DEFAULT } from '../../api/books/books-request.js';
import { harness } from '../helpers/harness.js';

/**
 * The export (GET /v1/qrs/invoices/export streams what invoiceExportStream gives) holds a bounded part of the
 * period whatever its size: PostgreSQL is read a batch at a time, and the next batch only when the reader has
 * taken the one before. The million-row figures (time, the API process's peak memory) are bench/books-export.ts's.
 */
describe('the export streams in bounded memory: a batch is read only when the reader has taken the one before (issue #32)', function () {
  this.timeout(60_000);
  const BATCHES = 10;
  const ROWS = EXPORT_BATCH * BATCHES;

  it(`reads ${ROWS} CFDIs in lockstep with a reader: none ahead while it stops, at most two ahead while it reads`, async () => {
    const db = harness().deps.db;
    const account = await harness().bootstrap();
    const xml = readFileSync(new URL('../fixtures/cfdi/stamped-sample.xml', import.meta.url), 'utf8');
    await db.raw(
      `INSERT INTO invoices (id, merchant_id, status, cfdi_type, series, folio, customer, document, uuid, sealed_xml, subtotal, total, stamped_at, email_sent_at, created_at)
       SELECT 'cfd_stream_' || ? || '_' || n, ?, 'ACTIVE', 'I', 'S', n, '{"rfc":"URE180429TM6","name":"UNIVERSIDAD ROBOTICA ESPAÑOLA"}'::jsonb, '{}'::jsonb,
         upper(md5(? || n)::uuid::text), ?, 100, 116, now(), now(), now() - n * interval '1 second'
       FROM generate_series(1, ?) AS n`,
      [account.merchantId, account.merchantId, account.merchantId, xml, ROWS],
    );

    // The export's batch statements for this merchant, as the pool sends them and as PostgreSQL answers them.
    let asked = 0;
    let answered = 0;
    let onAnswer: (() => void) | undefined;
    const isBatch = (q: { sql?: string; bindings?: unknown[] }) => Boolean(q.sql?.includes('x.sealed_xml') && JSON.stringify(q.bindings).includes(account.merchantId));
    const onQuery = (q: { sql?: string; bindings?: unknown[] }) => void (isBatch(q) && asked++);
    const onResponse = (_r: unknown, q: { sql?: string; bindings?: unknown[] }) => {
      if (!isBatch(q)) return;
      answered++;
      onAnswer?.();
    };
    db.on('query', onQuery).on('query-response', onResponse);
    try {
      const stream = invoiceExportStream(db, { merchantIds: [account.merchantId] }, { statuses: EXPORTED_BY_DEFAULT }, 'jsonl');
      const lines = (chunk: Buffer) => chunk.toString('utf8').split('\n').length - 1;

      // The reader takes the first batch and stops: the stream reads one batch more to have it ready, and no further.
      const first = await new Promise<Buffer>((resolve) =>
        stream.once('data', (chunk: Buffer) => {
          stream.pause();
          resolve(chunk);
        }),
      );
      expect(lines(first)).to.equal(EXPORT_BATCH);
      if (answered < 2) await new Promise<void>((resolve) => (onAnswer = () => answered >= 2 && resolve()));
      // PostgreSQL round trips in which a reader that did not wait for the reader would ask for its third batch.
      for (let i = 0; i < 3; i++) await db.raw('SELECT 1');
      expect({ asked, answered }).to.deep.equal({ asked: 2, answered: 2 });

      let rows = lines(first);
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        rows += lines(chunk);
        // Taken, one ready in the stream's buffer (a batch is more than its high-water mark) and one being read.
        expect(asked, `batches asked with ${rows} rows taken`).to.be.at.most(Math.ceil(rows / EXPORT_BATCH) + 2);
      }
      expect(rows).to.equal(ROWS);
      // Every full batch and the empty one that ends the export.
      expect(asked).to.equal(BATCHES + 1);
    } finally {
      db.off('query', onQuery).off('query-response', onResponse);
    }
  });
});
