import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A redis-server of a run's own (a cluster node, a Sentinel, a TLS or restricted server): started with
 * `args`, its log piped so readiness can be read from it, killed without goodbye. Tests and chaos
 * scenarios start theirs here and remove them when done.
 */
export function spawnRedisServer(args: string[]): ChildProcess {
  return spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves once the server's log holds `ready` (its own words: nothing else says when it listens). */
export function untilReady(child: ChildProcess, ready = 'Ready to accept connections'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(ready)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server ${child.spawnargs.slice(1).join(' ')} exited (${code}): ${out.slice(-500)}`)));
  });
}

/** Starts one and resolves with it once its log holds `ready`. */
export async function startRedisServer(args: string[], ready?: string): Promise<ChildProcess> {
  const child = spawnRedisServer(args);
  await untilReady(child, ready);
  return child;
}

/** SIGKILL (no persistence, no goodbye); resolves once it is gone. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}
