// CPU milliseconds by process around a run (issue #31: CPU per sale by process, for the capacity plan):
// utime + stime of /proc/<pid>/stat, for each role's processes and their descendants (node:cluster's
// workers, tsx's esbuild), Redis's server process (INFO server's process_id) and PostgreSQL's backends
// serving the run's database (pg_stat_activity), but not the bench's own connections (observerDatabaseUrl:
// its polls for INVOICED were up to a third of "PostgreSQL per CFDI"). Autovacuum workers of the database are
// a role of their own: they follow the rows written before, not the requests measured (and one that starts and
// ends between two readings is not seen). PostgreSQL's shared background processes
// (WAL writer, checkpointer…) are left out: on a shared machine they work for every database. Linux only.
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Cumulative CPU ms per role, and per PostgreSQL backend (a backend that ends mid-run keeps its last reading). */
export interface CpuReading {
  roles: Record<string, number>;
}

/** The application_name of the bench's own connections, whose backends' CPU is not the service's. */
const OBSERVER = 'bench-observer';

/** `databaseUrl` for the bench's own connections (its polls and checks), left out of the PostgreSQL readings. */
export function observerDatabaseUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', OBSERVER);
  return url.toString();
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based) → indexes 11 and 12 here.
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // gone
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `roots` and every process below them. */
function withDescendants(roots: number[]): number[] {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = roots.filter((pid) => pid > 0);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * A reader of cumulative CPU by role: `roles` names the service's own processes (e.g. API, worker); Redis and
 * PostgreSQL are found from their URLs. Deltas of two readings are the run's CPU.
 */
export function cpuReader(roles: Record<string, number[]>, redisUrl: string, databaseUrl: string): () => Promise<CpuReading> {
  const backends = new Map<number, { ms: number; autovacuum: boolean }>();
  return async () => {
    const out: Record<string, number> = {};
    for (const [role, roots] of Object.entries(roles)) out[role] = withDescendants(roots).reduce((sum, pid) => sum + cpuMsOf(pid), 0);
    const redis = new Redis(redisUrl);
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      const redisPid = Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1] ?? 0);
      out.Redis = redisPid ? cpuMsOf(redisPid) : 0;
      await client.connect();
      const { rows } = await client.query<{ pid: number; backend_type: string }>(
        'SELECT pid, backend_type FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1',
        [OBSERVER],
      );
      for (const { pid, backend_type } of rows) {
        const ms = cpuMsOf(pid);
        if (ms > 0) backends.set(pid, { ms, autovacuum: backend_type === 'autovacuum worker' });
      }
      const sum = (autovacuum: boolean) => [...backends.values()].filter((b) => b.autovacuum === autovacuum).reduce((n, b) => n + b.ms, 0);
      out.PostgreSQL = sum(false);
      out['PostgreSQL autovacuum'] = sum(true);
    } finally {
      redis.disconnect();
      await client.end();
    }
    return { roles: out };
  };
}

/** CPU ms per sale by role between two readings. */
export function cpuPerSale(before: CpuReading, after: CpuReading, sales: number): Record<string, number> {
  return Object.fromEntries(Object.entries(after.roles).map(([role, ms]) => [role, Math.round(((ms - (before.roles[role] ?? 0)) / Math.max(1, sales)) * 100) / 100]));
}
