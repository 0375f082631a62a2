import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnRedisServer, stopProcess, untilReady } from './redis-server-process.js';

const run = promisify(execFile);

/**
 * A Redis Cluster of the run's own on loopback: 3 masters and 3 replicas (Debian's redis-server with
 * --cluster-enabled, joined by redis-cli --cluster create), no persistence, in a temp dir. A short node
 * timeout (1 s) lets a replica take over a killed master within a few seconds.
 */
export interface OwnRedisCluster {
  /** `127.0.0.1:port,…`: REDIS_CLUSTER_NODES. */
  seeds: string;
  ports: number[];
  /** The ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  /** The master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILL one node (no persistence, no goodbye). */
  kill(port: number): Promise<void>;
  /** Resolves, with the ms it took, once a replica serves the killed master's slots (3 masters, all slots ok). */
  waitTakeover(killed: number, timeoutMs?: number): Promise<number>;
  /** Resolves once every slot is served again (cluster_state:ok as seen from `viaPort`). */
  waitOk(viaPort: number, timeoutMs?: number): Promise<number>;
  /** Kills every node and removes the directory. */
  stop(): Promise<void>;
}

/** A port that is free, and whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;
}

export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'af-redis-cluster-'));
  const nodes = new Map<number, ChildProcess>();
  const stop = async () => {
    await Promise.all([...nodes.values()].map(stopProcess));
    await rm(dir, { recursive: true, force: true });
  };
  const waitOk = async (viaPort: number, timeoutMs = 30_000): Promise<number> => {
    const started = performance.now();
    for (;;) {
      const info = await cli(viaPort, 'cluster', 'info').catch(() => '');
      if (info.includes('cluster_state:ok') && info.includes('cluster_slots_ok:16384')) return performance.now() - started;
      if (performance.now() - started > timeoutMs) throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms (seen from ${viaPort}): ${info}`);
      // The cluster's state has no event to wait on: its gossip settles in a few node timeouts.
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const alive = () => [...nodes].filter(([, c]) => c.exitCode === null && c.signalCode === null).map(([p]) => p);
  /** Masters as a live node sees them: flags without `fail` or `fail?`. */
  const masters = async (): Promise<number[]> => {
    const lines = (await cli(alive()[0]!, 'cluster', 'nodes')).split('\n').filter((l) => l.trim() !== '');
    return lines
      .map((l) => l.split(' '))
      .filter((f) => f[2]!.split(',').includes('master') && !f[2]!.includes('fail'))
      .map((f) => Number(/:(\d+)@/.exec(f[1]!)![1]));
  };
  try {
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < 6; i++) {
      const port = await freeClusterPort(taken);
      taken.add(port).add(port + 10_000);
      ports.push(port);
    }
    await Promise.all(
      ports.map((port) => {
        const child = spawnRedisServer([
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '1000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--daemonize',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ]);
        nodes.set(port, child);
        return untilReady(child);
      }),
    );
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
    for (const port of ports) await waitOk(port);
    // A replica that never synced has no data recent enough to be promoted: wait until every link is up.
    for (const port of ports) {
      const started = performance.now();
      for (;;) {
        const info = await cli(port, 'info', 'replication');
        if (info.includes('role:master') || info.includes('master_link_status:up')) break;
        if (performance.now() - started > 30_000) throw new Error(`replica ${port} never synced: ${info}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    return {
      seeds: ports.map((p) => `127.0.0.1:${p}`).join(','),
      ports,
      masters,
      async masterOf(key) {
        const slot = Number(await cli(alive()[0]!, 'cluster', 'keyslot', key));
        const lines = (await cli(alive()[0]!, 'cluster', 'nodes')).split('\n').filter((l) => l.includes('master') && !l.includes('fail'));
        for (const fields of lines.map((l) => l.trim().split(' '))) {
          for (const range of fields.slice(8)) {
            const [from, to = from] = range.split('-').map(Number);
            if (slot >= from! && slot <= to!) return Number(/:(\d+)@/.exec(fields[1]!)![1]);
          }
        }
        throw new Error(`no master serves slot ${slot}`);
      },
      async kill(port) {
        await stopProcess(nodes.get(port)!);
      },
      async waitTakeover(killed, timeoutMs = 30_000) {
        const started = performance.now();
        // Gossip has no event to wait on: the replica is promoted after a node timeout or two.
        while ((await masters()).includes(killed) || (await masters()).length < 3) {
          if (performance.now() - started > timeoutMs) throw new Error(`no replica took over ${killed} within ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, 100));
        }
        await waitOk(
          ports.find((p) => p !== killed)!,
          timeoutMs,
        );
        return performance.now() - started;
      },
      waitOk,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
