import type { Knex } from 'knex';

/**
 * idempotency_keys and webhook_events become range-partitioned by day on created_at (issue #41,
 * docs/data-growth.md): each is kept a window (IDEMPOTENCY_RETENTION_DAYS, WEBHOOK_EVENT_RETENTION_DAYS) and
 * old days leave by DROP of their partition (workers/keep-partitions.ts), never by a mass DELETE.
 *
 * No copy: the existing table, whatever it holds, becomes one partition, FOR VALUES FROM (MINVALUE) TO the
 * next UTC midnight, named as that last day's partition (`<table>_pYYYYMMDD`), so the keeper treats it as that
 * day and drops it, every row at once, when that day leaves the retention. A CHECK constraint validated
 * beforehand lets ATTACH skip its scan; the unique index the parent's primary key needs is built on it here
 * and made its primary key (on a large table, create it CONCURRENTLY before migrating, under the same name
 * `<table>_legacy_key`: `IF NOT EXISTS` finds it; the CHECK's validation is then the one scan, without a write lock
 * being needed for long).
 * Then today's rows still go to it, and the next days get daily partitions, a week of them made here.
 *
 * PostgreSQL wants the partition key in every unique index:
 * - idempotency_keys' primary key becomes (merchant_id, scope, key, created_at). One record per key is kept
 *   by claim_idempotency_key (below): a transaction advisory lock on the key's hash, then a look in every
 *   partition, then the insert. A VOLATILE function's statements each take a fresh snapshot (READ COMMITTED),
 *   so the look sees a concurrent claimer's row once its lock is released at its commit: concurrent first
 *   requests serialize as the old primary key made them do, across days too.
 * - webhook_events' primary key becomes (id, created_at) (ids are random); webhook_deliveries' foreign key
 *   to it goes (a foreign key to a partitioned table would have to carry the event's created_at, and each
 *   DETACH would scan the deliveries for references). The dispatcher writes an event's deliveries in the
 *   transaction that reads it, and events are kept longer than deliveries (config), so none is orphaned.
 */
const DAY_MS = 86_400_000;
const day = (at: Date, days = 0) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + days * DAY_MS);
const stamp = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
const AHEAD_DAYS = 7;

interface Conversion {
  table: string;
  /** The new table's columns and constraints. */
  definition: string;
  /** The old primary key, replaced on the old rows by `unique`. */
  oldPrimaryKey: string;
  unique: { name: string; columns: string };
  /** Indexes of the parent (so of every partition), by name: [name, definition after ON <table>]. */
  indexes: [string, string][];
  /** Constraints of other tables pointing at the old primary key, dropped first. */
  referencedBy: [string, string][];
}

const CONVERSIONS: Conversion[] = [
  {
    table: 'idempotency_keys',
    definition: `merchant_id text NOT NULL REFERENCES merchants(id) ON DELETE CASCADE,
      scope text NOT NULL,
      key uuid NOT NULL,
      fingerprint text NOT NULL,
      resource_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      CONSTRAINT idempotency_keys_pkey PRIMARY KEY (merchant_id, scope, key, created_at)`,
    oldPrimaryKey: 'idempotency_keys_pkey',
    unique: { name: 'idempotency_keys_legacy_key', columns: 'merchant_id, scope, key, created_at' },
    indexes: [],
    referencedBy: [],
  },
  {
    table: 'webhook_events',
    definition: `id text NOT NULL,
      account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
      dispatched_at timestamptz,
      CONSTRAINT webhook_events_pkey PRIMARY KEY (id, created_at)`,
    oldPrimaryKey: 'webhook_events_pkey',
    unique: { name: 'webhook_events_legacy_key', columns: 'id, created_at' },
    indexes: [['webhook_events_undispatched_idx', '(created_at) WHERE dispatched_at IS NULL']],
    referencedBy: [['webhook_deliveries', 'webhook_deliveries_event_id_fkey']],
  },
];

async function partition(knex: Knex, c: Conversion, now: Date): Promise<void> {
  const legacy = `${c.table}_p${stamp(day(now))}`;
  const cutover = day(now, 1).toISOString();
  for (const [table, constraint] of c.referencedBy) await knex.raw('ALTER TABLE ?? DROP CONSTRAINT IF EXISTS ??', [table, constraint]);
  await knex.raw('ALTER TABLE ?? RENAME TO ??', [c.table, legacy]);
  await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [legacy, c.oldPrimaryKey]);
  for (const [name] of c.indexes) await knex.raw('ALTER INDEX ?? RENAME TO ??', [name, `${legacy}_${name.slice(c.table.length + 1)}`]);
  await knex.raw(`CREATE UNIQUE INDEX IF NOT EXISTS ?? ON ?? (${c.unique.columns})`, [c.unique.name, legacy]);
  // As a primary key, ATTACH takes it for the parent's instead of building another.
  await knex.raw('ALTER TABLE ?? ADD CONSTRAINT ?? PRIMARY KEY USING INDEX ??', [legacy, `${legacy}_pkey`, c.unique.name]);
  // Validated here, it spares ATTACH its own scan; dropped after (the partition bound says the same).
  await knex.raw(`ALTER TABLE ?? ADD CONSTRAINT ?? CHECK (created_at < '${cutover}')`, [legacy, `${legacy}_bound`]);
  await knex.raw(`CREATE TABLE ?? (${c.definition}) PARTITION BY RANGE (created_at)`, [c.table]);
  for (const [name, definition] of c.indexes) await knex.raw(`CREATE INDEX ?? ON ?? ${definition}`, [name, c.table]);
  await knex.raw(`ALTER TABLE ?? ATTACH PARTITION ?? FOR VALUES FROM (MINVALUE) TO ('${cutover}')`, [c.table, legacy]);
  await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [legacy, `${legacy}_bound`]);
  // The old table's own foreign keys and defaults stay on it: the parent's are the same.
  for (let d = day(now, 1); d.getTime() <= day(now, AHEAD_DAYS).getTime(); d = day(d, 1)) {
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await knex.raw(`CREATE TABLE ?? PARTITION OF ?? FOR VALUES FROM ('${d.toISOString()}') TO ('${day(d, 1).toISOString()}')`, [`${c.table}_p${stamp(d)}`, c.table]);
  }
}

/** The claim of an idempotency key, for writers that claim it in the statement of their resource: the resource id, or null when the key was taken. */
const CLAIM_FUNCTION = `
  CREATE FUNCTION claim_idempotency_key(p_merchant_id text, p_scope text, p_key uuid, p_fingerprint text, p_resource_id text)
  RETURNS text LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    -- Serializes claims of one key until the holder's commit; the look below then sees its row (fresh snapshot).
    PERFORM pg_advisory_xact_lock(hashtextextended('idempotency:' || p_merchant_id || ':' || p_scope || ':' || p_key::text, 0));
    IF EXISTS (SELECT 1 FROM idempotency_keys WHERE merchant_id = p_merchant_id AND scope = p_scope AND key = p_key) THEN
      RETURN NULL;
    END IF;
    INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint, resource_id) VALUES (p_merchant_id, p_scope, p_key, p_fingerprint, p_resource_id);
    RETURN p_resource_id;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  const now = new Date();
  for (const c of CONVERSIONS) await partition(knex, c, now);
  await knex.raw(CLAIM_FUNCTION);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION claim_idempotency_key(text, text, uuid, text, text)');
  for (const c of [...CONVERSIONS].reverse()) {
    await knex.raw('ALTER TABLE ?? RENAME TO ??', [c.table, `${c.table}_partitioned`]);
    await knex.raw('ALTER TABLE ?? RENAME CONSTRAINT ?? TO ??', [`${c.table}_partitioned`, c.oldPrimaryKey, `${c.oldPrimaryKey}_partitioned`]);
    for (const [name] of c.indexes) await knex.raw('ALTER INDEX ?? RENAME TO ??', [name, `${name}_partitioned`]);
    const plainDefinition = c.definition.replace(/CONSTRAINT (\w+) PRIMARY KEY \(([^)]*), created_at\)/, 'CONSTRAINT $1 PRIMARY KEY ($2)');
    await knex.raw(`CREATE TABLE ?? (${plainDefinition})`, [c.table]);
    for (const [name, definition] of c.indexes) await knex.raw(`CREATE INDEX ?? ON ?? ${definition}`, [name, c.table]);
    await knex.raw('INSERT INTO ?? SELECT * FROM ?? ON CONFLICT DO NOTHING', [c.table, `${c.table}_partitioned`]);
    await knex.raw('DROP TABLE ??', [`${c.table}_partitioned`]);
  }
  // NOT VALID: deliveries whose events a retention already dropped stay; new ones are checked.
  await knex.raw('ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES webhook_events(id) ON DELETE CASCADE NOT VALID');
}
