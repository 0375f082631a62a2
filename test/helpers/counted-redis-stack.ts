import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../chaos/free-port.js';
import { startRedisServer, stopProcess } from '../../chaos/redis-server-process.js';
import { configWith, startStackOn, type StackOnRedis } from './stack-on-redis.js';

/** An API and its workers on a redis-server of their own, whose INFO commandstats counts only their commands (issue #40). */
export interface CountedRedisStack {
  stack: StackOnRedis;
  /** Every command the server has run so far, by name (those BullMQ's scripts run included). */
  commandCounts(): Promise<Record<string, number>>;
  /** CONFIG RESETSTAT: the counts start again from zero. */
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

/** The deployment's periodic jobs are set an hour apart: what is counted is the work asked for and the workers' idle waits. */
export async function startCountedRedisStack(prefixSuffix: string): Promise<CountedRedisStack> {
  const port = await freePort();
  const server: ChildProcess = await startRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  const url = `redis://127.0.0.1:${port}/0`;
  const hour = '3600000';
  const stack = await startStackOn(
    configWith({
      REDIS_URL: url,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX ?? 'aftest'}${prefixSuffix}`,
      WEBHOOK_DISPATCH_MS: hour,
      STAMP_SWEEP_MS: hour,
      EXPIRY_SWEEP_MS: hour,
      CANCELLATION_POLL_MS: hour,
      GLOBAL_INVOICE_CHECK_MS: hour,
    }),
  );
  const counter = new Redis(url);
  return {
    stack,
    async commandCounts() {
      const stats = await counter.info('commandstats');
      return Object.fromEntries([...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
    },
    async resetStats() {
      await counter.config('RESETSTAT');
    },
    async close() {
      counter.disconnect();
      await stack.close();
      await stopProcess(server);
    },
  };
}
