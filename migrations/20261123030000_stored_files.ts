import type { Knex } from 'knex';

// Files (logos, XML, PDF) when FILE_STORE=postgres (see shared/platform/storage/file-store.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stored_files', (t) => {
    t.text('key').primary();
    t.text('content_type').notNullable();
    t.binary('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('stored_files');
}
