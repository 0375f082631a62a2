import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { confirmQr, postQr, randomBetween, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, tally } from '../http-call.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface KillWorkerOptions {
  /** SIGKILLs of the worker process. */
  kills: number;
  /** Buyers confirming at once while the kills happen. */
  buyers?: number;
  /** How long every confirmed QR may take to end INVOICED after the last restart. */
  settleMs?: number;
}

/**
 * kill -9 the stamping worker at random moments while buyers confirm and stamps run, start it again each
 * time; afterwards every confirmed QR is INVOICED exactly once (one UUID, one folio) and the PAC made one
 * stamp per invoice. A job whose worker died stalls; a second stall fails it without a retry, so what
 * brings such a confirmation back is the PostgreSQL-driven `sweep-stamping` (STAMP_SWEEP_MS).
 */
export async function killWorkerMidStamp(ctx: ChaosContext, options: KillWorkerOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, `killworker${options.kills}`);
  const history = new History();
  const pacCallsBefore = ctx.pac.calls.length;
  const confirmed: string[] = [];
  let confirming = true;
  let killsWithStampsInFlight = 0;

  const buyer = async () => {
    while (confirming) {
      const key = randomUUID();
      const created = await history.record('create', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key));
      if (created.status !== 201) continue;
      const qr = created.body as { qr_id: string; qr_content: string };
      const answer = await history.record('confirm', qr.qr_id, () => confirmQr(services.baseUrl, qr.qr_content));
      if (answer.status === 202) confirmed.push(qr.qr_id);
      await sleep(randomBetween(0, 200));
    }
  };
  const buyers = Array.from({ length: options.buyers ?? 3 }, buyer);
  try {
    await sleep(1500);
    for (let i = 0; i < options.kills; i++) {
      await sleep(randomBetween(300, 2500));
      const stamping = Number((await ctx.db('invoices').whereIn('transaction_id', confirmed.slice()).where({ status: 'STAMPING' }).count({ n: '*' }).first())?.n ?? 0);
      if (stamping > 0) killsWithStampsInFlight++;
      await services.worker.kill();
      await services.worker.start();
    }
    confirming = false;
    await Promise.all(buyers);

    const invoicedCount = async () => Number((await ctx.db('qr_transactions').whereIn('id', confirmed).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n ?? 0);
    const settled = await waitFor(async () => (await invoicedCount()) === confirmed.length, options.settleMs ?? 180_000);

    const invoices = (await ctx.db('invoices').whereIn('transaction_id', confirmed).select('transaction_id', 'status', 'uuid', 'folio')) as {
      transaction_id: string;
      status: string;
      uuid: string | null;
      folio: string;
    }[];
    const live = invoices.filter((i) => i.status !== 'REFUSED');
    const perQr = new Map<string, number>();
    for (const i of live) perQr.set(i.transaction_id, (perQr.get(i.transaction_id) ?? 0) + 1);
    const invoiced = await invoicedCount();
    const newStamps = ctx.pac.calls
      .slice(pacCallsBefore)
      .filter((c) => c.outcome.startsWith('stamped'))
      .map((c) => c.uuid);
    const ourUuids = new Set(live.map((i) => i.uuid));
    const stamp = new Queue('stamp', { connection: { url: ctx.redisUrl }, prefix: services.queuePrefix });
    const failedJobs = (await stamp.getJobCounts('failed')).failed ?? 0;
    await stamp.close();

    const confirms = history.of('confirm');
    return {
      scenario: `kill -9 the stamping worker mid-stamp ×${options.kills}`,
      counts: `${options.kills} kills (${killsWithStampsInFlight} with stamps in flight), ${confirmed.length} QRs confirmed (${tally(confirms.map((e) => answerLabel(e.answer)))}), ${newStamps.length} PAC stamps, ${failedJobs} failed stamp jobs left in Redis`,
      checks: [
        check('every confirmed QR INVOICED', invoiced === confirmed.length, `${invoiced}/${confirmed.length}`),
        check(
          'one live invoice per QR, ACTIVE',
          live.length === confirmed.length && [...perQr.values()].every((n) => n === 1) && live.every((i) => i.status === 'ACTIVE'),
          `${live.length} live, ${live.filter((i) => i.status === 'ACTIVE').length} ACTIVE, ${invoices.length - live.length} REFUSED`,
        ),
        check(
          'one UUID and one folio per QR',
          new Set(live.map((i) => i.uuid)).size === live.length && new Set(live.map((i) => i.folio)).size === live.length,
          `${new Set(live.map((i) => i.uuid)).size} UUIDs, ${new Set(live.map((i) => i.folio)).size} folios`,
        ),
        check(
          'no CFDI stamped twice at the PAC',
          newStamps.length === live.length && newStamps.every((u) => u !== undefined && ourUuids.has(u)),
          `${newStamps.length} stamps for ${live.length} invoices`,
        ),
        check(
          'every confirm answered 202',
          confirms.every((e) => e.answer.status === 202),
          tally(confirms.map((e) => answerLabel(e.answer))),
        ),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings: settled === undefined ? `not all INVOICED within ${(options.settleMs ?? 180_000) / 1000} s` : `all INVOICED ${(settled / 1000).toFixed(1)} s after the last restart`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    confirming = false;
    await Promise.allSettled(buyers);
    await services.stop();
  }
}
