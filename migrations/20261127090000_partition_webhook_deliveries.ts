import type { Knex } from 'knex';

/**
 * webhook_deliveries becomes range-partitioned by day on created_at (issue #30, docs/data-growth.md): a
 * delivery is kept WEBHOOK_DELIVERY_RETENTION_DAYS, and old days leave by DROP of their partition, made
 * and dropped by the keep-partitions job, not by a mass DELETE. PostgreSQL requires the partition key in
 * every unique index: the primary key becomes (id, created_at) and the one-delivery-per-event-and-endpoint
 * rule (event_id, endpoint_id, created_at); the dispatcher's lock on the event (FOR UPDATE SKIP LOCKED,
 * marked dispatched in the same transaction) is what keeps it to one delivery. Lookups by id alone probe
 * each day's primary key index (a month: ~30 small probes). The rows are copied: the table was small
 * until now; a large one would be copied in batches behind a view.
 */
const DAY_MS = 86_400_000;
const day = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const name = (d: Date) => `webhook_deliveries_p${d.toISOString().slice(0, 10).replace(/-/g, '')}`;

async function createDays(knex: Knex, from: Date, to: Date): Promise<void> {
  for (let d = day(from); d.getTime() <= to.getTime(); d = new Date(d.getTime() + DAY_MS))
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await knex.raw(`CREATE TABLE IF NOT EXISTS ?? PARTITION OF webhook_deliveries FOR VALUES FROM ('${d.toISOString()}') TO ('${new Date(d.getTime() + DAY_MS).toISOString()}')`, [
      name(d),
    ]);
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_unpartitioned');
  for (const index of ['pkey', 'event_id_endpoint_id_unique', 'endpoint_id_created_at_index', 'pending_idx'])
    await knex.raw(`ALTER INDEX IF EXISTS webhook_deliveries_${index} RENAME TO webhook_deliveries_unpartitioned_${index}`);
  await knex.raw(`
    CREATE TABLE webhook_deliveries (
      id text NOT NULL,
      event_id text NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING','DELIVERED','FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      last_status_code integer,
      last_error text,
      last_attempt_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id, created_at),
      CONSTRAINT webhook_deliveries_event_endpoint_unique UNIQUE (event_id, endpoint_id, created_at)
    ) PARTITION BY RANGE (created_at)`);
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint_created_idx ON webhook_deliveries (endpoint_id, created_at)');
  await knex.raw(`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (created_at) WHERE status = 'PENDING'`);
  const { rows } = (await knex.raw('SELECT min(created_at) AS oldest FROM webhook_deliveries_unpartitioned')) as { rows: { oldest: Date | null }[] };
  const now = new Date();
  // From the oldest row kept (at most the default retention, 30 days) to a week ahead, as the job keeps it.
  const oldest = rows[0]?.oldest;
  const from = oldest && oldest.getTime() > now.getTime() - 30 * DAY_MS ? oldest : new Date(now.getTime() - 30 * DAY_MS);
  await createDays(knex, from, new Date(now.getTime() + 7 * DAY_MS));
  await knex.raw('INSERT INTO webhook_deliveries SELECT * FROM webhook_deliveries_unpartitioned WHERE created_at >= ?', [day(from)]);
  await knex.raw('DROP TABLE webhook_deliveries_unpartitioned');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_partitioned');
  await knex.raw('ALTER INDEX webhook_deliveries_pkey RENAME TO webhook_deliveries_partitioned_pkey');
  await knex.raw('ALTER INDEX webhook_deliveries_pending_idx RENAME TO webhook_deliveries_partitioned_pending_idx');
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
  await knex.raw('INSERT INTO webhook_deliveries SELECT * FROM webhook_deliveries_partitioned');
  await knex.raw('DROP TABLE webhook_deliveries_partitioned');
}
