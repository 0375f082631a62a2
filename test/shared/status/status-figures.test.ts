import { expect } from 'chai';
import { HOUR_MS, readStatusFigures, STATUS_QUERIES, statusWindow } from '../../../shared/status/status-figures.js';
import { harness } from '../../helpers/harness.js';
import { makeTraffic, moveSales } from '../../helpers/status-traffic.js';

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function planNodes(node: { Plans?: unknown[] } & Record<string, unknown>): Record<string, unknown>[] {
  return [node, ...(node.Plans ?? []).flatMap((child) => planNodes(child as { Plans?: unknown[] }))];
}

describe("the status page's figures (shared/status/status-figures.ts)", () => {
  // Forty days back: a day nothing else in the suite writes to, so the figures are exactly the test's.
  const current = new Date((Math.floor(Date.now() / HOUR_MS) - 40 * 24) * HOUR_MS);
  const now = new Date(current.getTime() + 30 * 60_000);
  const hourAgo = (hours: number) => new Date(current.getTime() - hours * HOUR_MS + 60_000);

  it('counts each hour of the last 24: QRs created, scanned, invoiced and expired, stamps with their latency, refusals with their SAT code', async function () {
    this.timeout(120_000);
    const account = await harness().bootstrap();
    const traffic = await makeTraffic(account, { created: 5, scanned: 3, invoiced: 2, refused: 1, expired: 1 });
    const [first, second] = traffic.invoiced as [string, string];
    const pending = traffic.created.find((id) => !traffic.scanned.includes(id) && !traffic.expired.includes(id))!;
    await moveSales([first, ...traffic.expired], hourAgo(5), 42);
    await moveSales([second], hourAgo(5), 8);
    await moveSales(traffic.refused, hourAgo(2), 3);
    // An hour before the window: not counted.
    await moveSales([pending], hourAgo(24), 0);

    const figures = await readStatusFigures(harness().deps.db, now);
    expect(figures.from).to.deep.equal(new Date(current.getTime() - 23 * HOUR_MS));
    expect(figures.to).to.deep.equal(new Date(current.getTime() + HOUR_MS));
    expect(figures.hours.map((h) => h.hour.getTime())).to.deep.equal(Array.from({ length: 24 }, (_, i) => figures.from.getTime() + i * HOUR_MS));
    const busy = figures.hours.flatMap((h, i) => (h.created + h.scanned + h.invoiced + h.expired + h.stamped + h.refused > 0 ? [i] : []));
    expect(busy).to.deep.equal([18, 21]);
    expect(figures.hours[18]).to.deep.include({ created: 3, scanned: 2, invoiced: 2, expired: 1, refused: 0, stamped: 2, p50Seconds: 25, maxSeconds: 42 });
    expect(figures.hours[18]!.p95Seconds).to.be.closeTo(8 + 0.95 * 34, 1e-9);
    expect(figures.hours[21]).to.deep.include({ created: 1, scanned: 1, invoiced: 0, refused: 1, stamped: 0, p50Seconds: null, p95Seconds: null });
    expect(figures.day).to.deep.include({ stamped: 2, p50Seconds: 25, maxSeconds: 42, refused: 1 });
    expect(figures.refusalCodes).to.deep.equal([{ code: 'CFDI40145', count: 1 }]);
  });

  it('reads a day of rows through the indexes, never a whole table', async () => {
    const { from, to } = statusWindow(now);
    const scanned = await harness().deps.db.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off'); // a sequential scan then shows only where no index serves
      const plans: Record<string, unknown>[][] = [];
      for (const sql of Object.values(STATUS_QUERIES)) {
        const res = await trx.raw<{ rows: { 'QUERY PLAN': [{ Plan: { Plans?: unknown[] } }] }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, sql.includes(':from') ? { from, to } : {});
        plans.push(planNodes(res.rows[0]!['QUERY PLAN'][0].Plan));
      }
      return plans
        .flat()
        .filter((n) => n['Node Type'] === 'Seq Scan')
        .map((n) => n['Relation Name']);
    });
    expect(scanned).to.deep.equal([]);
  });
});
