import knexFactory, { type Knex } from 'knex';
import { ensureDatabase, knexConfig } from '../../shared/platform/db.js';

/**
 * A database of a migration test's own (`url`), emptied and migrated up to just before `migration`: the schema
 * that migration finds in production, to be filled with old rows and then migrated (the suite's own database
 * stays at the latest schema).
 */
export async function databaseBeforeMigration(url: string, migration: string): Promise<Knex> {
  await ensureDatabase(url);
  const db = knexFactory(knexConfig(url));
  await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  for (;;) {
    const [, pending] = (await db.migrate.list()) as [unknown[], (string | { file: string })[]];
    const next = pending[0];
    if (next === undefined || (typeof next === 'string' ? next : next.file) === migration) return db;
    await db.migrate.up();
  }
}
