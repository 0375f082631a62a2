import type { Knex } from 'knex';

// Files the service serves publicly (logos): the one storage behind shared/storage/file-store.ts.
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
