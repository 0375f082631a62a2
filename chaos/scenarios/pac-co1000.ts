import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { confirmQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { startFaultProxy } from '../fault-proxy.js';
import { History } from '../history.js';
import { check, type Check, type ScenarioResult } from '../scenario-result.js';

export interface PacCo1000Options {
  /** How long the PAC answers CO1000. */
  faultMs: number;
  /** Confirmations made while it does. */
  confirmations?: number;
}

const ATTEMPTS = 4;
const SWEEP_MS = 2000;
const TIMEOUT_MS = 5000;

/**
 * SW answers "CO1000 - Error No Controlado" (its own failure, HTTP 400) to every stamp for `faultMs` while
 * buyers confirm, then stamps again. CO1000 is retried, never taken for a refusal: every confirmed QR ends
 * INVOICED once, no confirmation REFUSED (what the buyer's page would show), one PAC stamp per invoice, and no
 * invoice sent more often than its jobs' attempts allow per sweep that could have re-queued it.
 */
export async function pacCo1000(ctx: ChaosContext, options: PacCo1000Options): Promise<ScenarioResult> {
  const started = performance.now();
  const proxy = await startFaultProxy(ctx.pac.url);
  const services = await startServices(
    ctx,
    'pac-co1000',
    { PAC_ATTEMPTS: String(ATTEMPTS), PAC_BACKOFF_MS: '200', PAC_TIMEOUT_MS: String(TIMEOUT_MS), STAMP_SWEEP_MS: String(SWEEP_MS) },
    proxy.url,
  );
  const history = new History();
  const checks: Check[] = [];
  const stamp = new Queue('stamp', { connection: { url: ctx.redisUrl }, prefix: services.queuePrefix });
  try {
    proxy.mode = 'co1000';
    const faultStart = Date.now();
    const confirmed: string[] = [];
    const n = options.confirmations ?? 10;
    for (let i = 0; i < n; i++) {
      const key = randomUUID();
      const qr = await history.record('create', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key));
      if (qr.status !== 201) continue;
      const body = qr.body as { qr_id: string; qr_content: string };
      if ((await history.record('confirm', body.qr_id, () => confirmQr(services.baseUrl, body.qr_content))).status === 202) confirmed.push(body.qr_id);
      await sleep(options.faultMs / n / 2);
    }
    await sleep(Math.max(0, faultStart + options.faultMs - Date.now()));
    const faultCalls = proxy.calls.filter((c) => c.at >= faultStart && c.mode === 'co1000');
    const perFolio = new Map<string, number>();
    for (const c of faultCalls) perFolio.set(c.folio ?? '?', (perFolio.get(c.folio ?? '?') ?? 0) + 1);
    const maxPerFolio = Math.max(0, ...perFolio.values());
    const bound = ATTEMPTS * (1 + Math.ceil(options.faultMs / SWEEP_MS));
    // Nothing refused while the PAC failed: a refusal would show now, before any stamp could.
    const refusedDuringFault = Number((await ctx.db('invoices').whereIn('transaction_id', confirmed).where({ status: 'REFUSED' }).count({ n: '*' }).first())?.n ?? 0);
    proxy.mode = 'pass';
    const drained = await waitFor(
      async () => Number((await ctx.db('qr_transactions').whereIn('id', confirmed).where({ status: 'INVOICED' }).count({ n: '*' }).first())?.n ?? 0) === confirmed.length,
      90_000,
    );
    const invoices = (await ctx.db('invoices').whereIn('transaction_id', confirmed).select('id', 'uuid', 'status')) as { id: string; uuid: string | null; status: string }[];
    // The fake PAC's own log: how many CFDIs it stamped for each of these invoices.
    const uuids = new Set(invoices.map((i) => i.uuid));
    const stampsPerUuid = new Map<string, number>();
    for (const c of ctx.pac.calls) if (c.outcome === 'stamped' && c.uuid && uuids.has(c.uuid)) stampsPerUuid.set(c.uuid, (stampsPerUuid.get(c.uuid) ?? 0) + 1);
    const stampsRunning = async () => (await stamp.getActive()).filter((j) => j.name === 'stamp-invoice').length;
    await waitFor(async () => (await stampsRunning()) === 0, 10_000);
    const active = await stampsRunning();
    checks.push(
      check('CO1000 is retried, bounded', maxPerFolio <= bound, `max ${maxPerFolio} calls per invoice (bound ${bound})`),
      check('none refused', refusedDuringFault === 0 && invoices.every((i) => i.status !== 'REFUSED'), `${refusedDuringFault} refused during the fault`),
      check(
        'every confirmed QR INVOICED once',
        drained !== undefined && invoices.length === confirmed.length && invoices.every((i) => i.status === 'ACTIVE') && uuids.size === confirmed.length,
        `${invoices.filter((i) => i.status === 'ACTIVE').length}/${confirmed.length}`,
      ),
      check(
        'one PAC stamp per invoice',
        stampsPerUuid.size === confirmed.length && [...stampsPerUuid.values()].every((count) => count === 1),
        `${stampsPerUuid.size} stamped, max ${Math.max(0, ...stampsPerUuid.values())} each`,
      ),
      check('no stamp job left running', active === 0, `${active} active`),
      check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
    );
    return {
      scenario: `PAC answering CO1000 for ${options.faultMs / 1000} s, then stamping`,
      counts: `${confirmed.length} confirmed, ${faultCalls.length} CO1000 answers (≤ ${maxPerFolio} per invoice), ${history.events.length} requests`,
      checks,
      timings: `all INVOICED ${drained === undefined ? 'never' : `${(drained / 1000).toFixed(1)} s`} after recovery`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await stamp.close();
    await services.stop();
    await proxy.close();
  }
}
