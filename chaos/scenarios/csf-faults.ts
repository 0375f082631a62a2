import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { bootstrapAccount, type BootstrapResult } from '../../cli/bootstrap.js';
import { startFakeCsfServer } from '../../fakes/csf-server.js';
import { loadConfig } from '../../shared/platform/config.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { startFaultProxy, type FaultMode } from '../fault-proxy.js';
import { History } from '../history.js';
import { httpCall, answerLabel, tally } from '../http-call.js';
import { check, type Check, type ScenarioResult } from '../scenario-result.js';

export interface CsfFaultOptions {
  /** How long each fault lasts. */
  faultMs: number;
  /** Issuers (each in its own account) whose owners keep pressing "synchronize". */
  issuers?: number;
}

const ATTEMPTS = 3;
const TIMEOUT_MS = 2000;
const BACKOFF_MS = 200;
const CLICK_EVERY_MS = 1000;
const POS_CLIENTS = 8;

/**
 * SAT's CSF service (behind our CSF adapter) hangs, answers 503, answers garbage, each for `faultMs`,
 * while every issuer's owner presses "synchronize" every second and 8 POS clients create QRs back to back. Bounded
 * retries: at most CSF_ATTEMPTS calls per synchronization job for each issuer (each has its own idCIF, so
 * the proxy tells their calls apart), however many clicks joined it. No worker stuck: each synchronization
 * ends FAILED with its reason, no sync-issuer job left running or waiting. After recovery one more click
 * each (FAILED is final: the owner asks again) makes every issuer SUCCEEDED. The API never answers 5xx.
 */
export async function csfFaults(ctx: ChaosContext, options: CsfFaultOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const csf = await startFakeCsfServer();
  const proxy = await startFaultProxy(csf.url);
  const services = await startServices(ctx, 'csf', {
    CSF_BASE_URL: proxy.url,
    CSF_ATTEMPTS: String(ATTEMPTS),
    CSF_TIMEOUT_MS: String(TIMEOUT_MS),
    CSF_BACKOFF_MS: String(BACKOFF_MS),
  });
  const queue = new Queue(QUEUES.csfSync, { connection: { url: ctx.redisUrl }, prefix: services.queuePrefix });
  const history = new History();
  const checks: Check[] = [];
  const counts: string[] = [];
  const timings: string[] = [];
  try {
    const cfg = loadConfig({ ...process.env, DATABASE_URL: ctx.databaseUrl });
    const owners: BootstrapResult[] = [];
    for (let i = 0; i < (options.issuers ?? 10); i++) owners.push(await bootstrapAccount(ctx.db, cfg, `chaos-csf-${randomUUID()}`));
    // Every owner's issuer is SAT's test taxpayer (the fake CSF knows no other RFC); the fake takes any
    // 11-digit idCIF, so a distinct one each tells the issuers' CSF calls apart at the proxy.
    const idCifOf = new Map<string, string>();
    for (const [i, o] of owners.entries()) {
      const idCif = `9${String(i).padStart(10, '0')}`;
      await ctx.db('issuers').where({ id: o.issuerId }).update({ id_cif: idCif });
      idCifOf.set(o.issuerId, idCif);
    }
    const idCifOfCall = (url: string) => new URL(url, 'http://proxy').searchParams.get('idCif') ?? '?';
    const synchronize = (o: BootstrapResult) =>
      history.record('synchronize', o.issuerId, () =>
        httpCall('POST', `${services.baseUrl}/v1/qrs/issuers/${o.issuerId}/synchronize`, {
          headers: { Authorization: `Bearer ${o.accessToken}` },
        }),
      );
    const statuses = async () =>
      (await ctx
        .db('issuers')
        .whereIn(
          'id',
          owners.map((o) => o.issuerId),
        )
        .select('sync_status')) as { sync_status: string | null }[];
    // No synchronization waiting, retrying or running (the queue also holds sweep-lost-syncs' next run).
    const idle = async () => (await queue.getJobs(['active', 'waiting', 'delayed', 'prioritized'])).every((j) => j.name !== 'sync-issuer');

    for (const fault of ['hang', '5xx', 'garbage'] as FaultMode[]) {
      proxy.mode = fault;
      const faultStart = Date.now();
      const before = history.events.length;
      // The POS keeps selling meanwhile: POS_CLIENTS creating QRs back to back.
      const selling = Array.from({ length: POS_CLIENTS }, async () => {
        while (Date.now() - faultStart < options.faultMs) {
          const key = randomUUID();
          const body = saleBody(ctx);
          // A 503 (load shed, Retry-After) is retried with the same key, as a POS does.
          while ((await history.record('create', key, () => postQr(ctx, services.baseUrl, body, key))).status === 503) await sleep(100);
        }
      });
      while (Date.now() - faultStart < options.faultMs) {
        await Promise.all(owners.map(synchronize));
        await sleep(CLICK_EVERY_MS);
      }
      await Promise.all(selling);
      // Every synchronization started during the fault runs out of attempts and says so.
      const settled = await waitFor(async () => (await idle()) && (await statuses()).every((s) => s.sync_status === 'FAILED'), ATTEMPTS * (TIMEOUT_MS + 4 * BACKOFF_MS) + 30_000);
      const events = history.events.slice(before);
      const clicks = events.filter((e) => e.op === 'synchronize');
      const jobsPerIssuer = new Map<string, Set<string>>();
      for (const e of clicks) {
        const id = (e.answer.body as { jobId?: string } | undefined)?.jobId;
        if (id) jobsPerIssuer.set(e.key, (jobsPerIssuer.get(e.key) ?? new Set()).add(id));
      }
      const faultCalls = proxy.calls.filter((c) => c.at >= faultStart && c.mode === fault);
      const callsPerIdCif = new Map<string, number>();
      for (const c of faultCalls) callsPerIdCif.set(idCifOfCall(c.url), (callsPerIdCif.get(idCifOfCall(c.url)) ?? 0) + 1);
      const jobs = owners.reduce((n, o) => n + (jobsPerIssuer.get(o.issuerId)?.size ?? 0), 0);
      // Per issuer: its CSF calls against CSF_ATTEMPTS × the synchronizations its clicks started (never
      // more than its clicks); and every call is one of the issuers'.
      const perIssuer = owners.map((o) => ({
        calls: callsPerIdCif.get(idCifOf.get(o.issuerId)!) ?? 0,
        jobs: jobsPerIssuer.get(o.issuerId)?.size ?? 0,
        clicks: clicks.filter((e) => e.key === o.issuerId).length,
      }));
      const overBound = perIssuer.filter((p) => p.calls > ATTEMPTS * p.jobs || p.jobs > p.clicks);
      const strangers = faultCalls.filter((c) => ![...idCifOf.values()].includes(idCifOfCall(c.url))).length;
      const maxPerJob = Math.max(0, ...perIssuer.map((p) => (p.jobs === 0 ? p.calls : p.calls / p.jobs)));
      const creates = events.filter((e) => e.op === 'create');
      const sold = new Set(creates.filter((e) => e.answer.status === 201).map((e) => e.key));
      const sales = new Set(creates.map((e) => e.key));
      counts.push(
        `${fault}: ${clicks.length} clicks → ${jobs} synchronization jobs, ${faultCalls.length} CSF calls; ${sales.size} sales at ${Math.round(sales.size / (options.faultMs / 1000))} QR/s`,
      );
      checks.push(
        check(
          `${fault}: every click 202`,
          clicks.every((e) => e.answer.status === 202),
          tally(clicks.map((e) => answerLabel(e.answer))),
        ),
        check(
          `${fault}: bounded retries (≤ ${ATTEMPTS} CSF calls per job, per issuer)`,
          overBound.length === 0 && strangers === 0,
          `${faultCalls.length} calls for ${jobs} jobs; per issuer at most ${maxPerJob.toFixed(1)} calls per job, ${Math.max(0, ...perIssuer.map((p) => p.calls))} calls; ${overBound.length} issuers over, ${strangers} calls of no issuer`,
        ),
        check(
          `${fault}: every synchronization ended FAILED, no job left`,
          settled !== undefined,
          settled === undefined ? tally((await statuses()).map((s) => s.sync_status ?? 'none')) : '',
        ),
        check(
          `${fault}: every sale 201, no 5xx but 503 load shedding`,
          sold.size === sales.size && creates.every((e) => e.answer.status === 201 || (e.answer.status === 503 && e.answer.headers?.get('retry-after'))),
          `${sold.size}/${sales.size} sales; ${tally(creates.map((e) => answerLabel(e.answer)))}`,
        ),
      );
      timings.push(`${fault}: all FAILED ${settled === undefined ? 'never' : `${((Date.now() - faultStart - options.faultMs) / 1000).toFixed(1)} s after the fault's end`}`);
    }

    proxy.mode = 'pass';
    const recovered = Date.now();
    const clicks = await Promise.all(owners.map(synchronize));
    const succeeded = await waitFor(async () => (await idle()) && (await statuses()).every((s) => s.sync_status === 'SUCCEEDED'), 30_000);
    checks.push(
      check('after recovery, one click each: every issuer SUCCEEDED', succeeded !== undefined, tally((await statuses()).map((s) => s.sync_status ?? 'none'))),
      check(
        'after recovery, every click 202',
        clicks.every((a) => a.status === 202),
        tally(clicks.map(answerLabel)),
      ),
      check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
    );
    timings.push(`recovered: all SUCCEEDED ${succeeded === undefined ? 'never' : `${((Date.now() - recovered) / 1000).toFixed(1)} s after the click`}`);
    return {
      scenario: `CSF service hanging / 503 / garbage, ${options.faultMs / 1000} s each, ${owners.length} issuers`,
      counts: counts.join('; '),
      checks,
      timings: timings.join('; '),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await queue.close();
    await services.stop();
    await proxy.close();
    await csf.close();
  }
}
