import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { confirmQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { startFaultProxy, type FaultMode } from '../fault-proxy.js';
import { History } from '../history.js';
import { check, type Check, type ScenarioResult } from '../scenario-result.js';

export interface PacFaultOptions {
  /** How long each fault lasts. */
  faultMs: number;
  /** Confirmations made during each fault. */
  confirmations?: number;
  /** The faults, in turn; all of them when not given. */
  faults?: PacFault[];
}

type PacFault = Extract<FaultMode, 'hang' | '5xx' | 'garbage' | 'co1000'>;

const FAULT_NAMES: Record<PacFault, string> = { hang: 'hanging', '5xx': '503', garbage: 'garbage', co1000: 'CO1000 (SW: "Error No Controlado", HTTP 400)' };

const ATTEMPTS = 4;
const SWEEP_MS = 2000;
const TIMEOUT_MS = 5000;

/**
 * The PAC hangs, answers 503, answers garbage, answers SW's own "CO1000 - Error No Controlado", each for
 * `faultMs` while buyers confirm; then it recovers. Bounded retries: no confirmation is sent more often than
 * its job's attempts allow, per sweep that could have re-queued it. None taken for a refusal (what the
 * buyer's page would show). No worker stuck: the backlog drains after recovery, every QR INVOICED once with
 * one PAC stamp, no job left active.
 */
export async function pacFaults(ctx: ChaosContext, options: PacFaultOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const proxy = await startFaultProxy(ctx.pac.url);
  const services = await startServices(
    ctx,
    'pac',
    { PAC_ATTEMPTS: String(ATTEMPTS), PAC_BACKOFF_MS: '200', PAC_TIMEOUT_MS: String(TIMEOUT_MS), STAMP_SWEEP_MS: String(SWEEP_MS) },
    proxy.url,
  );
  const history = new History();
  const checks: Check[] = [];
  const counts: string[] = [];
  const timings: string[] = [];
  const stamp = new Queue('stamp', { connection: { url: ctx.redisUrl }, prefix: services.queuePrefix });
  try {
    const faults = options.faults ?? (Object.keys(FAULT_NAMES) as PacFault[]);
    for (const fault of faults) {
      proxy.mode = fault;
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
      const faultCalls = proxy.calls.filter((c) => c.at >= faultStart && c.mode === fault);
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
      const invoices = (await ctx.db('invoices').whereIn('transaction_id', confirmed).whereNot({ status: 'REFUSED' }).select('uuid', 'folio', 'status')) as {
        uuid: string;
        folio: string;
        status: string;
      }[];
      // The fake PAC's own log: how many CFDIs it stamped for each of these invoices.
      const uuids = new Set(invoices.map((i) => i.uuid));
      const stampsPerUuid = new Map<string, number>();
      for (const c of ctx.pac.calls) if (c.outcome === 'stamped' && c.uuid && uuids.has(c.uuid)) stampsPerUuid.set(c.uuid, (stampsPerUuid.get(c.uuid) ?? 0) + 1);
      // A stamp job still running 10 s after every QR is INVOICED (the sweep's own run aside) would be a stuck one.
      const stampsRunning = async () => (await stamp.getActive()).filter((j) => j.name === 'stamp-invoice' || j.name === 'stamp-invoices').length;
      await waitFor(async () => (await stampsRunning()) === 0, 10_000);
      const active = await stampsRunning();
      counts.push(`${fault}: ${confirmed.length} confirmed, ${faultCalls.length} PAC calls during ${options.faultMs / 1000} s (≤ ${maxPerFolio} per invoice)`);
      checks.push(
        check(`${fault}: bounded retries`, maxPerFolio <= bound, `max ${maxPerFolio} calls per invoice (bound ${bound})`),
        check(
          `${fault}: backlog drains, each INVOICED once`,
          drained !== undefined &&
            invoices.length === confirmed.length &&
            invoices.every((i) => i.status === 'ACTIVE') &&
            new Set(invoices.map((i) => i.uuid)).size === confirmed.length,
          `${invoices.filter((i) => i.status === 'ACTIVE').length}/${confirmed.length}`,
        ),
        check(`${fault}: none refused`, refusedDuringFault === 0, `${refusedDuringFault} refused during the fault`),
        check(
          `${fault}: one PAC stamp per invoice`,
          stampsPerUuid.size === confirmed.length && [...stampsPerUuid.values()].every((count) => count === 1),
          `${stampsPerUuid.size} stamped, max ${Math.max(0, ...stampsPerUuid.values())} each`,
        ),
        check(`${fault}: no stamp job left running`, active === 0, `${active} active`),
      );
      timings.push(`${fault}: drained ${drained === undefined ? 'never' : `${(drained / 1000).toFixed(1)} s`} after recovery`);
    }
    checks.push(check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')));
    return {
      scenario: `PAC ${faults.map((f) => FAULT_NAMES[f]).join(' / ')}, ${options.faultMs / 1000} s each`,
      counts: counts.join('; '),
      checks,
      timings: timings.join('; '),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await stamp.close();
    await services.stop();
    await proxy.close();
  }
}
