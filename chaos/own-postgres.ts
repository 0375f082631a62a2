import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);
/** Debian's PostgreSQL binaries (initdb, pg_ctl, pg_basebackup). */
export const POSTGRES_BIN = process.env.CHAOS_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const BIN = POSTGRES_BIN;

/**
 * A PostgreSQL cluster of the chaos run's own (initdb into a temp dir as the `postgres` OS user, trust
 * auth, loopback, random port): the one it may crash. The machine's shared PostgreSQL is never touched.
 */
export interface OwnPostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/NAME */
  url(database: string): string;
  /** `pg_ctl stop -m immediate`: no checkpoint, clients cut, crash recovery at the next start. */
  crash(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/** Runs a PostgreSQL binary as the postgres OS user when we are root (initdb refuses root). */
function asPostgres(command: string, args: string[]) {
  const argv = userInfo().uid === 0 ? (['runuser', ['-u', 'postgres', '--', command, ...args]] as const) : ([command, args] as const);
  return run(argv[0], [...argv[1]], { timeout: 60_000 });
}

async function waitReady(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`own PostgreSQL on ${port} never answered`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function ownedTempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'afchaos-pg-'));
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}

/** Starts (and restarts) the cluster in `dir`/data on `port`, loopback only. */
async function cluster(dir: string, port: number): Promise<OwnPostgres> {
  const data = join(dir, 'data');
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    await asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    await waitReady(port);
  };
  await start();
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async crash() {
      await asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-m', 'immediate', 'stop']);
    },
    start,
    async remove() {
      await asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Fills a new temp dir with `make` and starts its cluster; a failure on the way stops and removes what was made. */
async function madeCluster(make: (data: string) => Promise<unknown>): Promise<OwnPostgres> {
  const dir = await ownedTempDir();
  try {
    const port = await freePort();
    await make(join(dir, 'data'));
    return await cluster(dir, port);
  } catch (err) {
    await asPostgres(`${BIN}/pg_ctl`, ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  return madeCluster((data) => asPostgres(`${BIN}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']));
}

/**
 * A hot standby of `primary`, streaming from it (`pg_basebackup -R`: a base backup of the running cluster, its
 * WAL streamed alongside, and `standby.signal` with `primary_conninfo` written, so it starts as a replica). It
 * answers reads and refuses writes; `SELECT pg_wal_replay_pause()` on it holds it back (lag).
 */
export async function startStandby(primary: OwnPostgres): Promise<OwnPostgres> {
  return madeCluster((data) =>
    asPostgres(`${BIN}/pg_basebackup`, ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']),
  );
}
