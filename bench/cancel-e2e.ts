// End to end cancellation: the invoices stamped by the stamping run are cancelled by 10 callers at once
// through the API (DELETE, motive 02), timed until every one is CANCELLED (the cancel job: CSD, PAC
// cancel, acuse stored, SAT status). Part of `npm run bench`.
import type { Knex } from 'knex';

export interface CancelFigures {
  invoices: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

export async function benchCancelEndToEnd(options: { baseUrl: string; db: Knex; apiKey: string; count: number; concurrency: number }): Promise<CancelFigures> {
  const uuids = (await options
    .db('invoices')
    .where({ status: 'ACTIVE', cfdi_type: 'I' })
    .whereNotNull('transaction_id')
    .orderBy('stamped_at')
    .limit(options.count)
    .pluck('uuid')) as string[];
  const accepted = new Map<string, number>();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < uuids.length) {
        const uuid = uuids[next++]!;
        const res = await fetch(`${options.baseUrl}/v1/qrs/invoices/${uuid}`, {
          method: 'DELETE',
          headers: { 'X-API-Key': options.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ motive: '02' }),
        });
        if (res.status !== 202) throw new Error(`DELETE answered ${res.status}: ${await res.text()}`);
        accepted.set(uuid, performance.now());
      }
    }),
  );
  // The bench may poll: it measures the pipeline, and a 20 ms poll is small against a PAC round trip.
  const done = new Map<string, number>();
  while (done.size < uuids.length) {
    const rows = (await options.db('invoices').whereIn('uuid', uuids).where({ status: 'CANCELLED' }).pluck('uuid')) as string[];
    const now = performance.now();
    for (const uuid of rows) if (!done.has(uuid)) done.set(uuid, now);
    if (now - start > 300_000) throw new Error(`only ${done.size} of ${uuids.length} cancelled after 300 s`);
    if (done.size < uuids.length) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - start) / 1000;
  const latencies = uuids.map((u) => done.get(u)! - accepted.get(u)!).sort((a, b) => a - b);
  return {
    invoices: uuids.length,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round((uuids.length / seconds) * 10) / 10,
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
  };
}
