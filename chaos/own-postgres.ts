import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = process.env.CHAOS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the chaos run's own (initdb into a temp dir as the `postgres` OS user, trust
 * auth, loopback, random port): the one it may crash. The machine's shared PostgreSQL is never touched.
 */
export interface OwnPostgres {
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

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'afchaos-pg-'));
  const data = join(dir, 'data');
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  await asPostgres(`${BIN}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    await asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    await waitReady(port);
  };
  await start();
  return {
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
