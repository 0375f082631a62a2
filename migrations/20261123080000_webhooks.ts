import type { Knex } from 'knex';

/**
 * Webhooks (issue #7). Events are written to `webhook_events` in the same transaction as the state change
 * they announce (an outbox): a crash after the commit loses nothing, the dispatcher finds the row. Only
 * accounts with an endpoint get rows. The dispatcher turns an event into one delivery per subscribed
 * endpoint (unique per event and endpoint), each a BullMQ job retried for up to a day.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('description');
    // Empty: every event type.
    t.specificType('events', 'text[]').notNullable().defaultTo('{}');
    // The HMAC key must be usable to sign, so it is encrypted (AES-256-GCM), not hashed.
    t.binary('secret_encrypted').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['account_id']);
  });

  await knex.schema.createTable('webhook_events', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('dispatched_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX webhook_events_undispatched_idx ON webhook_events (created_at) WHERE dispatched_at IS NULL');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('event_id').notNullable().references('webhook_events.id').onDelete('CASCADE');
    t.text('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('PENDING');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('last_attempt_at', { useTz: true });
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['event_id', 'endpoint_id']);
    t.index(['endpoint_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING','DELIVERED','FAILED'))`);
  await knex.raw(`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (created_at) WHERE status = 'PENDING'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhook_events');
  await knex.schema.dropTableIfExists('webhook_endpoints');
}
