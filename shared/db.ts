import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { config } from './config.js';

export type Db = Knex;
export type Trx = Knex.Transaction;

// timestamptz as Date, numeric as string (exact; money code reads it with dec()), int8 as string.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => v);

export function knexConfig(databaseUrl: string = config().databaseUrl): Knex.Config {
  return {
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: Number(process.env.DB_POOL_MAX ?? 20) },
    acquireConnectionTimeout: 10_000,
    migrations: {
      directory: new URL('../migrations', import.meta.url).pathname,
      tableName: 'knex_migrations',
      loadExtensions: ['.ts'],
    },
  };
}

let handle: Db | undefined;

/** The process-wide database handle. */
export function db(): Db {
  handle ??= knexFactory(knexConfig());
  return handle;
}

export async function closeDb(): Promise<void> {
  if (handle) {
    const h = handle;
    handle = undefined;
    await h.destroy();
  }
}

/** Creates the database named in the URL when it does not exist yet (development convenience). */
export async function ensureDatabase(databaseUrl: string = config().databaseUrl): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Two processes racing to create it: the other one won, which is fine.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

export async function migrateLatest(database: Db = db()): Promise<string[]> {
  const [, applied] = (await database.migrate.latest()) as [number, string[]];
  return applied;
}
