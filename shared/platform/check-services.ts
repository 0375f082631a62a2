import { Redis } from 'ioredis';
import { ensureDatabase } from './db.js';
import { redisOptions } from './redis.js';

/** A start that cannot succeed for a reason a person fixes (a service down, a busy port): one line says what to do. */
export class StartupHint extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupHint';
  }
}

/** A dependency the service cannot run without is unreachable: one line says which and how to start it. */
export class ServiceUnreachable extends StartupHint {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceUnreachable';
  }
}

function where(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${portOf(u)}`;
}

function portOf(u: URL): string {
  return u.port || (u.protocol.startsWith('redis') ? '6379' : '5432');
}

/** Creates the database when missing; fails with a ServiceUnreachable when PostgreSQL does not answer. */
export async function checkPostgres(databaseUrl: string): Promise<void> {
  try {
    await ensureDatabase(databaseUrl);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceUnreachable(
      `PostgreSQL is not reachable at ${where(databaseUrl)} (DATABASE_URL): ${reason}. ` +
        'Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    );
  }
}

export async function checkRedis(redisUrl: string): Promise<void> {
  const client = new Redis({ ...redisOptions('fail-fast', redisUrl), retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceUnreachable(
      `Redis is not reachable at ${where(redisUrl)} (REDIS_URL): ${reason}. ` +
        `Start it with: redis-server --daemonize yes --bind 127.0.0.1 -::1 --port ${portOf(new URL(redisUrl))} --save "" --appendonly no`,
    );
  } finally {
    client.disconnect();
  }
}
