// BENCH_ONLY=stamping (`npm run bench`): the stamping runs alone, a few minutes instead of the whole bench,
// each with CPU ms per CFDI by process (worker, API, PostgreSQL, Redis), PostgreSQL statements per CFDI by
// process (with BENCH_STATEMENTS=1) and Redis commands per CFDI (the whole server's: right on a quiet one).
import type { ChildProcess } from 'node:child_process';
import type { Knex } from 'knex';
import type { FakePacServer } from '../fakes/pac-server.js';
import { benchStampEndToEnd, type StampFigures } from './stamp-e2e.js';
import { statementsOf } from './stack.js';
import { readCounts } from './lean/counters.js';
import { cpuPerSale, type CpuReading } from './lean/cpu.js';

export interface StampingRun {
  baseUrl: string;
  db: Knex;
  pac: FakePacServer;
  apiKey: string;
  storeUid: string;
  redisUrl: string;
  databaseUrl: string;
  processes: { API: ChildProcess; worker: ChildProcess };
  cpu: () => Promise<CpuReading>;
}

export interface MeasuredStamping extends StampFigures {
  cpuMsPerCfdi: Record<string, number>;
  statementsPerCfdi: Record<string, number>;
  redisCommandsPerCfdi: number;
}

async function statements(run: StampingRun): Promise<Record<string, number | undefined>> {
  return { API: await statementsOf(run.processes.API), worker: await statementsOf(run.processes.worker) };
}

export async function measureStamping(run: StampingRun, latencyMs: number, count: number, validates: boolean, concurrency: number): Promise<MeasuredStamping> {
  let cpuBefore: CpuReading = { roles: {} };
  let countsBefore = { redisCommands: 0 };
  let statementsBefore: Record<string, number | undefined> = {};
  const ready = async () => {
    [cpuBefore, countsBefore, statementsBefore] = [await run.cpu(), await readCounts(run.redisUrl, run.databaseUrl), await statements(run)];
  };
  const figures = await benchStampEndToEnd({ ...run, count, concurrency, latencyMs, validates, ready });
  // The e-mails follow the stamps: their work is the CFDI's too.
  while (Number(((await run.db.raw("SELECT count(*) AS n FROM invoices WHERE status = 'ACTIVE' AND email_sent_at IS NULL")) as { rows: { n: string }[] }).rows[0]?.n) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [cpuAfter, countsAfter, statementsAfter] = [await run.cpu(), await readCounts(run.redisUrl, run.databaseUrl), await statements(run)];
  const perCfdi = (n: number) => Math.round((n / count) * 100) / 100;
  const statementsPerCfdi: Record<string, number> = {};
  for (const role of ['API', 'worker'] as const) {
    const [before, after] = [statementsBefore[role], statementsAfter[role]];
    if (before !== undefined && after !== undefined) statementsPerCfdi[role] = perCfdi(after - before);
  }
  return {
    ...figures,
    cpuMsPerCfdi: cpuPerSale(cpuBefore, cpuAfter, count),
    statementsPerCfdi,
    redisCommandsPerCfdi: perCfdi(countsAfter.redisCommands - countsBefore.redisCommands),
  };
}

export function stampingLine(s: MeasuredStamping): string {
  const cpu = Object.entries(s.cpuMsPerCfdi)
    .map(([role, ms]) => `${role} ${ms}`)
    .join(', ');
  const sql = Object.entries(s.statementsPerCfdi)
    .map(([role, n]) => `${role} ${n}`)
    .join(', ');
  return (
    `Stamping, fake PAC ${s.validates ? 'validating' : 'not validating'} +${s.latencyMs} ms: ${s.invoices} in ${s.seconds} s = ${s.perSecond} CFDI/s ` +
    `(p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms); CPU ms per CFDI: ${cpu}; statements per CFDI: ${sql || 'not counted (BENCH_STATEMENTS=1)'}; Redis commands per CFDI ${s.redisCommandsPerCfdi}`
  );
}
