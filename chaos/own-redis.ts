import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

/**
 * A redis-server of the chaos run's own (loopback, random port, no persistence, in a temp dir): the one
 * it may kill, stop and flush. The machine's shared Redis is never touched.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL (no persistence: every key is lost, as in a crash of a Redis without AOF). */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill). */
  restart(): Promise<void>;
  flushAll(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

async function waitPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch {
      client.disconnect();
      if (Date.now() > deadline) throw new Error(`own redis-server on ${port} never answered`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'afchaos-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--maxmemory-policy', 'noeviction'], {
      stdio: 'ignore',
    });
    await waitPing(port);
  };
  const stop = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await gone;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill: () => stop('SIGKILL'),
    restart: launch,
    async flushAll() {
      const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
      await client.connect();
      await client.flushall();
      client.disconnect();
    },
    async remove() {
      await stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
