import { expect } from 'chai';
import pg from 'pg';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

/**
 * Issue #41, "Beyond one primary" (docs/distribution.md): were the tables distributed by merchant over several
 * PostgreSQL nodes (Citus), a statement that names its merchant goes to one node; one that does not goes to
 * all. Every statement of the hot paths (a sale's insert, its GET, the buyer's resolve, the confirmation, the
 * stamp's record, the books' list) is captured as it reaches PostgreSQL (pg's Client.query, every statement
 * of knex and of the prepared ones), run against the real database, and each one that touches a distributed
 * table must name its distribution column in its WHERE or its INSERT's columns, or be one of the exceptions
 * the document lists, with why.
 */

/** Distributed by merchant_id: the tables that grow with sales (docs/distribution.md, "Distribution column"). */
const BY_MERCHANT = new Set([
  'qr_transactions',
  'qr_concepts',
  'qr_concept_taxes',
  'invoices',
  'invoice_tickets',
  'invoice_cancellations',
  'merchant_folios',
  'merchant_products',
  'idempotency_keys',
  'global_invoices',
  'offline_claims',
  'credit_allocations',
  'payment_allocations',
  'webhook_events',
  'webhook_deliveries',
]);

/**
 * The hot statements that do not name their merchant today, and why (docs/distribution.md lists each with what
 * it becomes). A new hot statement without its merchant fails this test until it names it or is listed here.
 */
const EXCEPTIONS: { pattern: RegExp; why: string }[] = [
  {
    pattern: /WHERE t\.token = \$1/,
    why: "the buyer's link carries the token alone (it says nothing about the merchant, by design): a token → merchant table distributed by token routes it",
  },
  {
    pattern: /^insert into "invoice_tickets"/i,
    why: 'a child table without merchant_id (reached through its invoice): it gains the column to be co-located with its invoice',
  },
  {
    pattern:
      /^(select .* from "qr_transactions" where "id" in \(.*for update|update "qr_transactions" set "status" = \$1, "scanned_at" .* where "id" in|select "series", "folio" from "invoices" where "transaction_id" = \$1|select "id" from "invoices" where "transaction_id" = \$1)/is,
    why: "the confirmation's statements by sale id (recordConfirmation): the merchants are known (the tickets' sales), to be named when the confirmation becomes ~3 statements (issue #40); tickets of several stores of one issuer make a multi-shard transaction",
  },
  {
    pattern:
      /^(UPDATE invoices i SET sealed_xml = s\.xml, .* FROM unnest\(|SELECT i\.\*, m\.name AS store_name, .* WHERE i\.id = ANY\(\$1::text\[\]\)|UPDATE invoices SET email_sent_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP WHERE id = ANY\(\$1::text\[\]\))/s,
    why: "a stamp batch (issue #40) gathers an API process's confirmations of any merchants: its read, its sealed documents' save and its mails' mark touch each merchant of the batch; distributed, the batch carries its merchants' ids (`merchant_id = ANY(…)` prunes to their nodes) or the batcher groups by merchant",
  },
  {
    pattern: /^UPDATE invoices SET sealed_xml = \$2, issued_local = \$3, updated_at = CURRENT_TIMESTAMP WHERE id = \$1/,
    why: 'the stamp job carries the invoice id alone: the batched stamp job (issue #40) carries the merchant with it',
  },
];

interface Captured {
  text: string;
  values: unknown[];
}

/** The tables a statement reads or writes (FROM, JOIN, INTO, UPDATE), lower case, without quotes. */
function tablesOf(text: string): string[] {
  return [...text.matchAll(/\b(?:from|join|into|update)\s+"?([a-z_]+)"?/gi)].map((m) => m[1]!.toLowerCase());
}

/** Whether the statement names merchant_id where it chooses rows: an INSERT's columns, or the WHERE (or ON CONFLICT) of the rest. */
function namesMerchant(text: string): boolean {
  const lower = text.toLowerCase();
  if (/^\s*(with\b.*?\)\s*)?insert\b/s.test(lower) && !/\bwhere\b/.test(lower)) return /\bmerchant_id\b/.test(lower);
  const where = lower.search(/\bwhere\b/);
  return where >= 0 && /\bmerchant_id\b/.test(lower.slice(where));
}

describe('issue #41: every hot statement names its distribution column (docs/distribution.md)', function () {
  this.timeout(60_000);
  const original = pg.Client.prototype.query;
  let capturing: Captured[] | undefined;
  let account: BootstrapResult;

  before(async () => {
    account = await harness().bootstrap();
    // Recorded as sent, then passed on untouched: the statements run against the real database.
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [first, second] = args;
      const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
      const values = Array.isArray(second) ? second : ((first as { values?: unknown[] } | undefined)?.values ?? []);
      if (capturing && text) capturing.push({ text, values });
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  });

  after(() => {
    pg.Client.prototype.query = original;
  });

  /**
   * The statements `run` caused: those whose parameters carry one of the ids (the sale's, its invoice's, the
   * merchant's, the token; known once `run` is over for an invoice it made): the workers' sweeps running
   * meanwhile name none of them.
   */
  async function statementsOf(idsOf: string[] | (() => Promise<string[]>), run: () => Promise<unknown>): Promise<string[]> {
    const captured: Captured[] = [];
    capturing = captured;
    try {
      await run();
    } finally {
      capturing = undefined;
    }
    const ids = Array.isArray(idsOf) ? idsOf : await idsOf();
    const mine = (v: unknown): boolean => (Array.isArray(v) ? v.some(mine) : typeof v === 'string' && ids.some((id) => v.includes(id)));
    return [...new Set(captured.filter((c) => c.values.some(mine)).map((c) => c.text))];
  }

  /** The statements of `texts` that touch a distributed table without naming merchant_id, less the listed exceptions. */
  function unrouted(texts: string[]): string[] {
    return texts.filter((text) => tablesOf(text).some((t) => BY_MERCHANT.has(t)) && !namesMerchant(text) && !EXCEPTIONS.some((e) => e.pattern.test(text)));
  }

  it('the sale, its GET, the buyer’s resolve and confirmation, the stamp’s record and the books’ list', async () => {
    const report: Record<string, string[]> = {};
    let link: QrLink | undefined;
    report['POST /v1/qrs'] = await statementsOf([account.merchantId], async () => (link = await newQrLink(account)));
    const sale = link!;
    report['GET /v1/qrs/{qrId}'] = await statementsOf([sale.qrId], () => call('GET', `/v1/qrs/${sale.qrId}`, { headers: { 'X-API-Key': account.apiKey } }));
    report['GET /v1/public/qrs/resolve'] = await statementsOf([sale.t], () => call('GET', `/v1/public/qrs/resolve?${linkQuery(sale)}`));
    const events = await queueEvents('stamp');
    try {
      const ids = async () => [sale.qrId, sale.t, account.merchantId, ...((await harness().deps.db('invoices').where({ transaction_id: sale.qrId }).pluck('id')) as string[])];
      report['preview + confirm + stamp'] = await statementsOf(ids, async () => {
        const confirmed = await confirmReviewed(sale);
        expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(202);
        await stamped(events, sale.qrId);
      });
    } finally {
      await events.close();
    }
    report['GET /v1/qrs (books)'] = await statementsOf([account.merchantId], () => call('GET', '/v1/qrs?size=10', { headers: { 'X-API-Key': account.apiKey } }));
    for (const [step, texts] of Object.entries(report)) expect(texts, `${step}: no statement captured`).to.not.be.empty;
    const missing = Object.entries(report).flatMap(([step, texts]) => unrouted(texts).map((text) => `${step}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`));
    expect(missing, missing.join('\n')).to.deep.equal([]);
  });
});
