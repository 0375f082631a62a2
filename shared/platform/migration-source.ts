import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

/**
 * The migrations as knex sees them, from TypeScript sources (tsx: development, tests) or from the
 * compiled JavaScript (`npm run build`: production). Each migration keeps its source name (`….ts`)
 * whichever file is loaded, so a database migrated by one can be migrated by the other: knex records
 * names and refuses a directory where a recorded name is missing.
 */
export function migrationSource(directory: string): Knex.MigrationSource<string> {
  return {
    async getMigrations() {
      return readdirSync(directory)
        .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
        .sort();
    },
    getMigrationName(file) {
      return file.replace(/\.js$/, '.ts');
    },
    async getMigration(file) {
      return (await import(pathToFileURL(join(directory, file)).href)) as Knex.Migration;
    },
  };
}
