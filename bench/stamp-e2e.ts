// End to end stamping: N QRs confirmed by buyers at once, timed until every one is INVOICED (the API's
// confirm, the stamp worker's build, seal and PAC round trip, the database writes), with the fake PAC
// checking each document or stamping at once without checks, with or without 300 ms of latency. Part of
// `npm run bench` (API and workers as processes).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { FakePacServer } from '../fakes/pac-server.js';
import { BUYER } from '../test/helpers/buyer.js';
import { saleBodies } from './sale-bodies.js';

export interface StampFigures {
  latencyMs: number;
  /** Whether the fake PAC checked each document (XSD through xmllint, seal, amounts) before stamping. */
  validates: boolean;
  invoices: number;
  seconds: number;
  perSecond: number;
  /** Confirm accepted to INVOICED, per invoice. */
  p50Ms: number;
  p99Ms: number;
}

interface Link {
  v: string;
  t: string;
  m: string;
  qrId: string;
}

async function newLinks(baseUrl: string, apiKey: string, storeUid: string, count: number): Promise<Link[]> {
  const body = saleBodies(storeUid);
  const links: Link[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/v1/qrs`, {
      method: 'POST',
      body: body(),
      headers: { 'X-API-Key': apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
    });
    const created = (await res.json()) as { qr_id: string; qr_content: string };
    if (res.status !== 201) throw new Error(`QR not created: ${res.status} ${JSON.stringify(created)}`);
    const url = new URL(created.qr_content);
    links.push({ v: url.searchParams.get('v')!, t: url.searchParams.get('t')!, m: url.searchParams.get('m')!, qrId: created.qr_id });
  }
  return links;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** Confirms `count` fresh QRs with `concurrency` buyers at a time and waits until all are INVOICED. */
export async function benchStampEndToEnd(options: {
  baseUrl: string;
  db: Knex;
  pac: FakePacServer;
  apiKey: string;
  storeUid: string;
  count: number;
  concurrency: number;
  latencyMs: number;
  validates: boolean;
  /** Called once the QRs exist, before the confirmations: readings around the stamping alone start here. */
  ready?: () => Promise<void>;
}): Promise<StampFigures> {
  const { baseUrl, db, pac, count } = options;
  const links = await newLinks(baseUrl, options.apiKey, options.storeUid, count);
  pac.latencyMs = options.latencyMs;
  pac.validates = options.validates;
  await options.ready?.();
  const accepted = new Map<string, number>();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < links.length) {
        const link = links[next++]!;
        // As the page does: the preview's review_digest goes with the confirmation.
        const request = { v: link.v, t: link.t, m: link.m, customer: BUYER };
        const post = (path: string, body: unknown) =>
          fetch(`${baseUrl}/v1/public/qrs/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const preview = await post('preview', request);
        if (preview.status !== 200) throw new Error(`preview answered ${preview.status}: ${await preview.text()}`);
        const { review_digest } = (await preview.json()) as { review_digest: string };
        const res = await post('confirm', { ...request, review_digest });
        if (res.status !== 202) throw new Error(`confirm answered ${res.status}: ${await res.text()}`);
        accepted.set(link.qrId, performance.now());
      }
    }),
  );
  // The bench may poll: it measures the pipeline, and a 50 ms step is small against a stamp's seconds under
  // load. Its connections are left out of the CPU readings (observerDatabaseUrl), not out of the machine.
  const done = new Map<string, number>();
  const ids = links.map((l) => l.qrId);
  while (done.size < ids.length) {
    // Only the ids still waiting, as one array parameter: the poll shares the machine with what it
    // measures, so it should cost less as invoices finish, not re-plan a 1,000-id IN list every step.
    const waiting = ids.filter((id) => !done.has(id));
    const { rows } = (await db.raw("SELECT id FROM qr_transactions WHERE id = ANY(?::text[]) AND status = 'INVOICED'", [`{${waiting.join(',')}}`])) as { rows: { id: string }[] };
    const now = performance.now();
    for (const { id } of rows) if (!done.has(id)) done.set(id, now);
    if (now - start > 300_000) throw new Error(`only ${done.size} of ${ids.length} invoiced after 300 s`);
    if (done.size < ids.length) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - start) / 1000;
  const latencies = ids.map((id) => done.get(id)! - accepted.get(id)!).sort((a, b) => a - b);
  return {
    latencyMs: options.latencyMs,
    validates: options.validates,
    invoices: count,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round((count / seconds) * 10) / 10,
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
  };
}
