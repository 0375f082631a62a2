// Redis commands and PostgreSQL transactions per sale (issue #31), read from the servers' own statistics
// around a run: INFO commandstats (every client's commands, BullMQ's scripts as one each) and
// pg_stat_database's commits and rollbacks (an autocommitted statement is one transaction). Both count
// the whole server, so they are right only on a machine nothing else uses; the readings' own commands are
// a handful per run.
import { Redis } from 'ioredis';
import pg from 'pg';

export interface ServerCounts {
  redisCommands: number;
  /** Per command name (BullMQ's scripts appear as evalsha); what the total is made of. */
  redisByCommand: Record<string, number>;
  pgTransactions: number;
}

/**
 * PostgreSQL publishes a backend's statistics when it goes idle, at most once a second, and an idle
 * backend's leftovers within 10 s (PGSTAT_IDLE_INTERVAL): a reading waits that long after the load.
 */
export const PG_STATS_SETTLE_MS = 11_000;

export async function readCounts(redisUrl: string, databaseUrl: string): Promise<ServerCounts> {
  const redis = new Redis(redisUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const stats = await redis.info('commandstats');
    const redisByCommand: Record<string, number> = {};
    for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) redisByCommand[m[1]!] = Number(m[2]);
    const redisCommands = Object.values(redisByCommand).reduce((sum, n) => sum + n, 0);
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return { redisCommands, redisByCommand, pgTransactions: Number(rows[0]?.n ?? 0) };
  } finally {
    redis.disconnect();
    await client.end();
  }
}
