import type { Knex } from 'knex';

/**
 * qr_transactions, qr_concepts and qr_concept_taxes become range-partitioned by calendar month (issue #41,
 * docs/data-growth.md "Done: `qr_transactions`, `qr_concepts`, `qr_concept_taxes`"): a month of sales leaves by DROP of its partitions once every CFDI
 * built from it is past its five years (workers/keep-partitions.ts), never by a mass DELETE.
 *
 * No copy of the sales: the existing table becomes the partition `qr_transactions_legacy`, FOR VALUES FROM
 * (MINVALUE) TO (this migration's instant), after a CHECK of that bound is validated (so ATTACH does not scan)
 * and its primary key is rebuilt as (id, created_at) (`qr_transactions_legacy_id_key`; on a large table build
 * it, and `qr_transactions_legacy_token_key`, CONCURRENTLY under those names before migrating: IF NOT EXISTS
 * finds them). Its other indexes are renamed and taken by the parent's as they are. The lines (concepts,
 * taxes) gain the sale's `transaction_created_at` (filled from the sale: on a large table fill it in batches
 * first, `WHERE transaction_created_at IS NULL` leaves nothing here) and are attached the same way.
 *
 * What PostgreSQL cannot keep unique across partitions:
 * - id and token: new ones carry their creation millisecond (shared/platform/ids.ts, 48 bits then 80 random),
 *   and each month's partition CHECKs that the row's created_at is that instant, so two equal ids or tokens
 *   fall in one partition, where (id, created_at) and (token, created_at) are unique. Old ones stay in the
 *   legacy partition, unique there as before. A lookup computes the partition from the key (qr_key_instant),
 *   then, finding nothing, reads the legacy partition (shared/repositories/qr-transactions.ts, saleByKey).
 * - the short code, the sale's idempotency key and the offline ticket: one narrow unpartitioned row per sale in
 *   qr_sale_keys, written by POST /v1/qrs's statement, whose unique constraints carry the old indexes' names
 *   (so the API's conflict handling reads the same constraint names).
 * - one open or invoiced QR per sale: qr_live_sales, a row per sale whose QR is PENDING, SCANNED or INVOICED,
 *   kept by a trigger on every status change; its primary key is the old index's name.
 * The side tables' rows of a month leave with it (batched DELETE of a narrow table, before the DROP).
 *
 * Foreign keys: concepts → sale and taxes → concept are composite with the sale's created_at and enforced
 * (the retention drops the lines' partition first). invoices → sale and invoice_tickets → sale are dropped: an
 * invoice past its five years would forbid its month's DETACH, and invoices have no retention of their own yet;
 * a ticket gets its sale's created_at from a trigger that refuses a ticket of no sale (the insert-time check
 * the foreign key made), and sales leave only with their month, when no CFDI of theirs is younger than five
 * years (the keeper checks).
 *
 * POST /v1/qrs of the previous version fails between this migration and the new code (its lines lack
 * transaction_created_at, its ids no instant): deploy both together.
 */
const LIVE = `('PENDING','SCANNED','INVOICED')`;
const AHEAD_MONTHS = 2;

const utcMonth = (at: Date, months = 0) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1));
const monthName = (table: string, month: Date) => `${table}_p${month.toISOString().slice(0, 7).replace('-', '')}`;

/** The CHECK a month of sales carries: its rows' ids and tokens name their instant. */
const KEYS_CARRY_TIME = (name: string) => `CONSTRAINT "${name}_keys_carry_time" CHECK (created_at = qr_key_instant(substr(id, 5)) AND created_at = qr_key_instant(token))`;

/** Indexes of the sales, on the parent (so on every month), as the old table had them. */
const SALE_INDEXES: [name: string, definition: string][] = [
  ['qr_transactions_open_expiry_idx', `(expires_at) WHERE status IN ('PENDING','SCANNED')`],
  [
    'qr_transactions_unreported_period_idx',
    `(global_period_end, merchant_id) WHERE global_invoice_id IS NULL AND global_period_end IS NOT NULL AND status IN ('PENDING','SCANNED','EXPIRED')`,
  ],
  ['qr_transactions_created_at_idx', '(created_at)'],
  ['qr_transactions_scanned_at_idx', '(scanned_at) WHERE scanned_at IS NOT NULL'],
  ['qr_transactions_expired_at_idx', '(expired_at) WHERE expired_at IS NOT NULL'],
  ['qr_transactions_merchant_created_idx', '(merchant_id, created_at, id)'],
  ['qr_transactions_global_invoice_idx', '(global_invoice_id) WHERE global_invoice_id IS NOT NULL'],
];

const FUNCTIONS = (cutover: string) => [
  // The instant the first 8 Base64URL characters of a key carry (48 bits of milliseconds); null when they cannot.
  `CREATE FUNCTION qr_key_instant(k text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT CASE WHEN k ~ '^[A-Za-z0-9_-]{8}' THEN timestamptz '1970-01-01 00:00:00+00'
       + ('x' || encode(decode(translate(substr(k, 1, 8), '-_', '+/'), 'base64'), 'hex'))::bit(48)::bigint * interval '1 millisecond' END $$`,
  // Rows before this instant are the old table's (keys without an instant): the legacy partition.
  `CREATE FUNCTION qr_legacy_before() RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT timestamptz '${cutover}' $$`,
  // A sale's created_at from its id: its instant's partition, else the legacy one (the ticket trigger's lookup).
  `CREATE FUNCTION qr_created_at(p_id text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
   BEGIN
     RETURN coalesce(
       (SELECT created_at FROM qr_transactions WHERE id = p_id AND created_at = qr_key_instant(substr(p_id, 5))),
       (SELECT created_at FROM qr_transactions WHERE id = p_id AND created_at < qr_legacy_before()));
   END $$`,
  // A key as the service makes them, for rows written by SQL (benches, fixtures): the instant, then 80 random bits.
  `CREATE FUNCTION qr_key_at(at timestamptz) RETURNS text LANGUAGE sql VOLATILE AS $$
     SELECT rtrim(translate(encode(substr(int8send((extract(epoch FROM date_trunc('milliseconds', at)) * 1000)::bigint), 3, 6)
       || substr(decode(md5(random()::text || clock_timestamp()::text), 'hex'), 1, 10), 'base64'), '+/', '-_'), '=') $$`,
  // One open or invoiced QR per sale, across months: the sale's row in qr_live_sales follows its QR's status.
  `CREATE FUNCTION qr_transactions_live_sale() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.status IN ${LIVE} AND NEW.status NOT IN ${LIVE}) THEN
       -- Sales leave by their month's DROP (the keeper deletes its rows here first); a DELETE is a bench's or a test's.
       DELETE FROM qr_live_sales WHERE merchant_id = OLD.merchant_id AND mode = OLD.mode AND sale_id = OLD.sale_id AND transaction_id = OLD.id;
     ELSIF NEW.status IN ${LIVE} AND (TG_OP = 'INSERT' OR OLD.status NOT IN ${LIVE}) THEN
       -- A row moved to another month (an UPDATE of created_at: a DELETE, then an INSERT) keeps its own entry.
       INSERT INTO qr_live_sales AS l (merchant_id, mode, sale_id, transaction_id, transaction_created_at)
       VALUES (NEW.merchant_id, NEW.mode, NEW.sale_id, NEW.id, NEW.created_at)
       ON CONFLICT (merchant_id, mode, sale_id) DO UPDATE SET transaction_created_at = EXCLUDED.transaction_created_at
       WHERE l.transaction_id = EXCLUDED.transaction_id;
       IF NOT FOUND THEN
         RAISE unique_violation USING MESSAGE = format('sale %s already has an open or invoiced QR', NEW.sale_id),
           CONSTRAINT = 'qr_transactions_one_per_sale', TABLE = 'qr_live_sales';
       END IF;
     END IF;
     RETURN NULL;
   END $$`,
  // A ticket names its sale by id; its created_at (what the retention reads) comes from the sale, which must exist.
  `CREATE FUNCTION invoice_tickets_sale_instant() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.transaction_created_at := qr_created_at(NEW.transaction_id);
     IF NEW.transaction_created_at IS NULL THEN
       RAISE foreign_key_violation USING MESSAGE = format('invoice ticket of no sale: %s', NEW.transaction_id),
         CONSTRAINT = 'invoice_tickets_transaction_fkey', TABLE = 'invoice_tickets';
     END IF;
     RETURN NEW;
   END $$`,
];

async function raw(knex: Knex, ...statements: string[]): Promise<void> {
  for (const statement of statements) await knex.raw(statement);
}

/** Makes `table` (renamed `<table>_legacy`) the first partition of a new `table` created by `createParent`. */
async function attachLegacy(
  knex: Knex,
  table: string,
  column: string,
  cutover: string,
  primaryKey: string,
  createParent: (legacy: string) => string,
  extra: (legacy: string) => string[] = () => [],
): Promise<void> {
  const legacy = `${table}_legacy`;
  await raw(
    knex,
    `ALTER TABLE ${table} RENAME TO ${legacy}`,
    `ALTER TABLE ${legacy} DROP CONSTRAINT ${table}_pkey`,
    `CREATE UNIQUE INDEX IF NOT EXISTS ${legacy}_id_key ON ${legacy} (${primaryKey})`,
    // As a primary key, ATTACH takes it for the parent's instead of building another.
    `ALTER TABLE ${legacy} ADD CONSTRAINT ${legacy}_pkey PRIMARY KEY USING INDEX ${legacy}_id_key`,
    ...extra(legacy),
    createParent(legacy),
    // Validated here, it spares ATTACH its own scan; dropped after (the partition bound says the same).
    `ALTER TABLE ${legacy} ADD CONSTRAINT ${legacy}_bound CHECK (${column} < '${cutover}')`,
    `ALTER TABLE ${table} ATTACH PARTITION ${legacy} FOR VALUES FROM (MINVALUE) TO ('${cutover}')`,
    `ALTER TABLE ${legacy} DROP CONSTRAINT ${legacy}_bound`,
  );
}

async function createMonths(knex: Knex, table: string, cutover: Date, clause?: (name: string) => string): Promise<void> {
  for (let m = 0; m <= AHEAD_MONTHS; m++) {
    const from = m === 0 ? cutover : utcMonth(cutover, m);
    const name = monthName(table, utcMonth(cutover, m));
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await knex.raw(
      `CREATE TABLE ${name} PARTITION OF ${table} ${clause ? `(${clause(name)})` : ''} FOR VALUES FROM ('${from.toISOString()}') TO ('${utcMonth(cutover, m + 1).toISOString()}')`,
    );
  }
}

export async function up(knex: Knex): Promise<void> {
  const at = new Date();
  const cutover = at.toISOString();

  // What pointed at the old keys.
  await raw(
    knex,
    'ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_transaction_id_foreign',
    'ALTER TABLE invoice_tickets DROP CONSTRAINT IF EXISTS invoice_tickets_transaction_id_foreign',
    'ALTER TABLE qr_concept_taxes DROP CONSTRAINT IF EXISTS qr_concept_taxes_transaction_id_concept_position_foreign',
    'ALTER TABLE qr_concepts DROP CONSTRAINT IF EXISTS qr_concepts_transaction_id_foreign',
  );

  // The unique rules that leave the sales' table, with the names the API knows them by.
  await raw(
    knex,
    'ALTER TABLE qr_transactions DROP CONSTRAINT qr_transactions_merchant_id_idempotency_key_unique',
    'DROP INDEX qr_transactions_short_code_key',
    'DROP INDEX qr_transactions_offline_ticket_key',
    'DROP INDEX qr_transactions_one_per_sale',
    `CREATE TABLE qr_sale_keys (
       transaction_id text NOT NULL,
       transaction_created_at timestamptz NOT NULL,
       merchant_id text NOT NULL,
       idempotency_key text NOT NULL,
       short_code text,
       offline_key_id text,
       offline_sale_id text,
       CONSTRAINT qr_transactions_merchant_id_idempotency_key_unique UNIQUE (merchant_id, idempotency_key),
       CONSTRAINT qr_transactions_short_code_key UNIQUE (short_code))`,
    `INSERT INTO qr_sale_keys SELECT id, created_at, merchant_id, idempotency_key, short_code, offline_key_id,
       CASE WHEN offline_key_id IS NOT NULL THEN sale_id END FROM qr_transactions`,
    'CREATE UNIQUE INDEX qr_transactions_offline_ticket_key ON qr_sale_keys (offline_key_id, offline_sale_id) WHERE offline_key_id IS NOT NULL',
    // Written in time order: a BRIN index (a few kilobytes) finds a month's rows for the retention.
    'CREATE INDEX qr_sale_keys_created_idx ON qr_sale_keys USING brin (transaction_created_at)',
    `CREATE TABLE qr_live_sales (
       merchant_id text NOT NULL,
       mode text NOT NULL,
       sale_id text NOT NULL,
       transaction_id text NOT NULL,
       transaction_created_at timestamptz NOT NULL,
       CONSTRAINT qr_transactions_one_per_sale PRIMARY KEY (merchant_id, mode, sale_id))`,
    `INSERT INTO qr_live_sales SELECT merchant_id, mode, sale_id, id, created_at FROM qr_transactions WHERE status IN ${LIVE}`,
    'CREATE INDEX qr_live_sales_created_idx ON qr_live_sales (transaction_created_at)',
  );
  await raw(knex, ...FUNCTIONS(cutover));

  // The lines carry their sale's created_at (their partition key), filled from the sale.
  await raw(
    knex,
    'ALTER TABLE qr_concepts ADD COLUMN IF NOT EXISTS transaction_created_at timestamptz',
    `UPDATE qr_concepts c SET transaction_created_at = t.created_at FROM qr_transactions t WHERE t.id = c.transaction_id AND c.transaction_created_at IS NULL`,
    'ALTER TABLE qr_concepts ALTER COLUMN transaction_created_at SET NOT NULL',
    'ALTER TABLE qr_concept_taxes ADD COLUMN IF NOT EXISTS transaction_created_at timestamptz',
    `UPDATE qr_concept_taxes x SET transaction_created_at = t.created_at FROM qr_transactions t WHERE t.id = x.transaction_id AND x.transaction_created_at IS NULL`,
    'ALTER TABLE qr_concept_taxes ALTER COLUMN transaction_created_at SET NOT NULL',
    'ALTER TABLE invoice_tickets ADD COLUMN IF NOT EXISTS transaction_created_at timestamptz',
    `UPDATE invoice_tickets k SET transaction_created_at = t.created_at FROM qr_transactions t WHERE t.id = k.transaction_id AND k.transaction_created_at IS NULL`,
    'ALTER TABLE invoice_tickets ALTER COLUMN transaction_created_at SET NOT NULL',
    'CREATE INDEX invoice_tickets_sale_created_idx ON invoice_tickets (transaction_created_at)',
    `CREATE TRIGGER invoice_tickets_sale_instant BEFORE INSERT OR UPDATE OF transaction_id ON invoice_tickets
       FOR EACH ROW EXECUTE FUNCTION invoice_tickets_sale_instant()`,
  );

  await attachLegacy(
    knex,
    'qr_transactions',
    'created_at',
    cutover,
    'id, created_at',
    (legacy) =>
      `CREATE TABLE qr_transactions (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE,
         CONSTRAINT qr_transactions_pkey PRIMARY KEY (id, created_at),
         CONSTRAINT qr_transactions_token_key UNIQUE (token, created_at),
         FOREIGN KEY (merchant_id) REFERENCES merchants(id),
         FOREIGN KEY (global_invoice_id) REFERENCES invoices(id),
         FOREIGN KEY (offline_key_id) REFERENCES offline_keys(id)
       ) PARTITION BY RANGE (created_at)`,
    (legacy) => [
      'ALTER TABLE qr_transactions_legacy DROP CONSTRAINT qr_transactions_token_unique',
      `CREATE UNIQUE INDEX IF NOT EXISTS ${legacy}_token_key ON ${legacy} (token, created_at)`,
      // A constraint, as the parent's is: ATTACH then takes it instead of building another.
      `ALTER TABLE ${legacy} ADD CONSTRAINT ${legacy}_token_key UNIQUE USING INDEX ${legacy}_token_key`,
      ...SALE_INDEXES.map(([name]) => `ALTER INDEX ${name} RENAME TO ${legacy}_${name.slice('qr_transactions_'.length)}`),
      // The parent's trigger is cloned onto it at ATTACH.
      `DROP TRIGGER qr_transactions_finished_png ON ${legacy}`,
    ],
  );
  await raw(
    knex,
    ...SALE_INDEXES.map(([name, definition]) => `CREATE INDEX ${name} ON qr_transactions ${definition}`),
    `CREATE TRIGGER qr_transactions_finished_png BEFORE INSERT OR UPDATE OF status ON qr_transactions
       FOR EACH ROW WHEN (NEW.status NOT IN ('PENDING', 'SCANNED') AND NEW.qr_png IS NOT NULL)
       EXECUTE FUNCTION qr_transactions_drop_finished_png()`,
    `CREATE TRIGGER qr_transactions_live_sale AFTER INSERT OR UPDATE OF status OR DELETE ON qr_transactions
       FOR EACH ROW EXECUTE FUNCTION qr_transactions_live_sale()`,
  );
  await createMonths(knex, 'qr_transactions', at, KEYS_CARRY_TIME);

  await attachLegacy(
    knex,
    'qr_concepts',
    'transaction_created_at',
    cutover,
    'transaction_id, transaction_created_at, position',
    (legacy) =>
      `CREATE TABLE qr_concepts (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE,
       CONSTRAINT qr_concepts_pkey PRIMARY KEY (transaction_id, transaction_created_at, position),
       CONSTRAINT qr_concepts_transaction_fkey FOREIGN KEY (transaction_id, transaction_created_at)
         REFERENCES qr_transactions (id, created_at) ON UPDATE CASCADE ON DELETE CASCADE
     ) PARTITION BY RANGE (transaction_created_at)`,
  );
  await createMonths(knex, 'qr_concepts', at);
  await attachLegacy(
    knex,
    'qr_concept_taxes',
    'transaction_created_at',
    cutover,
    'transaction_id, transaction_created_at, concept_position, position',
    (legacy) =>
      `CREATE TABLE qr_concept_taxes (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE,
       CONSTRAINT qr_concept_taxes_pkey PRIMARY KEY (transaction_id, transaction_created_at, concept_position, position),
       CONSTRAINT qr_concept_taxes_concept_fkey FOREIGN KEY (transaction_id, transaction_created_at, concept_position)
         REFERENCES qr_concepts (transaction_id, transaction_created_at, position) ON UPDATE CASCADE ON DELETE CASCADE
     ) PARTITION BY RANGE (transaction_created_at)`,
  );
  await createMonths(knex, 'qr_concept_taxes', at);
}

export function down(): Promise<void> {
  // Back to one table would copy five years of sales: restore the backup taken before migrating instead.
  return Promise.reject(new Error('20261128210000_partition_qr_transactions cannot be undone in place; restore the pre-migration backup'));
}
