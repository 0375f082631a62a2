import type { Knex } from 'knex';

/**
 * ZIP exports of CFDIs (issue #32): one row per requested archive, what it covers (the merchants in scope and
 * the filters, instants already resolved), its progress, the stored file once built, and when it is removed.
 * `owner` is who may read it (an API key's merchant, `merchant:<id>`, or a bearer account, `account:<id>`);
 * an idempotency key is unique per owner, so a retried POST finds the export it made.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_exports', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('owner').notNullable();
    t.specificType('merchant_ids', 'text[]').notNullable();
    t.jsonb('filters').notNullable();
    t.boolean('include_pdf').notNullable().defaultTo(false);
    t.text('status').notNullable().defaultTo('PENDING');
    t.integer('files_done').notNullable().defaultTo(0);
    t.integer('files_total');
    t.text('file_key');
    t.bigInteger('size_bytes');
    t.text('failure');
    t.uuid('idempotency_key');
    t.text('fingerprint').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
  await knex.raw(`ALTER TABLE invoice_exports ADD CONSTRAINT invoice_exports_status_check CHECK (status IN ('PENDING', 'RUNNING', 'READY', 'FAILED'))`);
  await knex.raw('CREATE UNIQUE INDEX invoice_exports_idempotency ON invoice_exports (owner, idempotency_key) WHERE idempotency_key IS NOT NULL');
  await knex.raw('CREATE INDEX invoice_exports_owner ON invoice_exports (owner, created_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_exports');
}
