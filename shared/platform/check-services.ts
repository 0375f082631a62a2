import pg from 'pg';
import { ensureDatabase } from './db.js';
import { redisClient, redisSettingsOf, type RedisSettings } from './redis.js';

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

/** DATABASE_READ_URL answers a statement (a replica is never created or migrated: its primary's database comes to it). */
export async function checkReadReplica(databaseReadUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseReadUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceUnreachable(`PostgreSQL is not reachable at ${where(databaseReadUrl)} (DATABASE_READ_URL): ${reason}. Leave it empty to read from DATABASE_URL.`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Fails with a ServiceUnreachable when Redis does not answer a PING, saying why in one line: the TLS error
 * (a wrong or missing REDIS_TLS_CA_FILE) when the handshake failed, how to start a local server otherwise.
 */
export async function checkRedis(target: RedisSettings | string): Promise<void> {
  const settings = redisSettingsOf(target);
  const cluster = settings.redisClusterNodes.length > 0;
  let client;
  let lastError: Error | undefined;
  try {
    client = redisClient('fail-fast', settings, { lazyConnect: true, once: true });
    client.on('error', (err: Error) => (lastError = err));
    await client.connect();
    await client.ping();
  } catch (err) {
    const cause = lastError ?? err;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const list = (nodes: { host: string; port: number }[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');
    const sentinel = settings.redisSentinels.length > 0;
    const at = sentinel
      ? `the master ${settings.redisSentinelName} of the Sentinels ${list(settings.redisSentinels)} (REDIS_SENTINELS)`
      : cluster
        ? `the cluster ${list(settings.redisClusterNodes)} (REDIS_CLUSTER_NODES)`
        : `${where(settings.redisUrl)} (REDIS_URL)`;
    const tls = new URL(settings.redisUrl).protocol === 'rediss:';
    const hint =
      tls && isTlsError(cause)
        ? `The TLS handshake failed: REDIS_TLS_CA_FILE (${settings.redisTlsCaFile || 'unset: the system CAs'}) must hold the CA that signed the server's certificate.`
        : /unknown command .INFO|NOPERM.*info/i.test(reason)
          ? 'This Redis refuses INFO (a managed service): set REDIS_SKIP_VERSION_CHECK=1.'
          : cluster || sentinel || tls
            ? 'Check the address and that the server accepts this client.'
            : `Start it with: redis-server --daemonize yes --bind 127.0.0.1 -::1 --port ${portOf(new URL(settings.redisUrl))} --save "" --appendonly no`;
    throw new ServiceUnreachable(`Redis is not reachable at ${at}: ${reason}. ${hint}`);
  } finally {
    client?.disconnect();
  }
}

function isTlsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code);
}
