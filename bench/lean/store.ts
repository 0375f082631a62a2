// The lean server's table, in a schema of its own so it never touches the project's: created by the
// primary before the workers start, dropped when it stops. One row per sale: its money as numeric(15,6),
// its concepts as jsonb (whose numbers PostgreSQL keeps as numeric, never binary floats) and its PNG, so
// a sale is one INSERT and a GET one SELECT.
import pg from 'pg';

export const LEAN_SCHEMA = 'bench_lean';

export async function createLeanTable(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${LEAN_SCHEMA} CASCADE; CREATE SCHEMA ${LEAN_SCHEMA};
      CREATE TABLE ${LEAN_SCHEMA}.sales (
        id text PRIMARY KEY,
        store_uid text NOT NULL,
        sale_id text NOT NULL,
        amount numeric(15,6) NOT NULL,
        subtotal numeric(15,6) NOT NULL,
        currency text NOT NULL,
        expires_at timestamptz NOT NULL,
        qr_content text NOT NULL,
        concepts jsonb NOT NULL,
        qr_png bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  } finally {
    await client.end();
  }
}

export async function dropLeanTable(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${LEAN_SCHEMA} CASCADE`);
  } finally {
    await client.end();
  }
}

export interface LeanSale {
  id: string;
  storeUid: string;
  saleId: string;
  /** Decimal strings: the request's numbers as they were written, never rounded through arithmetic. */
  amount: string;
  subtotal: string;
  currency: string;
  expiresAt: string;
  qrContent: string;
  concepts: unknown[];
  png: Buffer;
}

export function insertSale(pool: pg.Pool, sale: LeanSale): Promise<pg.QueryResult> {
  return pool.query({
    name: 'lean-insert-sale',
    text: `INSERT INTO ${LEAN_SCHEMA}.sales (id, store_uid, sale_id, amount, subtotal, currency, expires_at, qr_content, concepts, qr_png)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    values: [sale.id, sale.storeUid, sale.saleId, sale.amount, sale.subtotal, sale.currency, sale.expiresAt, sale.qrContent, JSON.stringify(sale.concepts), sale.png],
  });
}

export interface LeanSaleRow {
  id: string;
  store_uid: string;
  sale_id: string;
  amount: string;
  subtotal: string;
  currency: string;
  expires_at: Date;
  qr_content: string;
  concepts: unknown[];
  qr_png: Buffer;
}

/** pg's named prepared statement: parsed and planned once per connection, then only bound and run. */
export async function findSale(pool: pg.Pool, id: string): Promise<LeanSaleRow | undefined> {
  const result = await pool.query<LeanSaleRow>({
    name: 'lean-find-sale',
    text: `SELECT id, store_uid, sale_id, amount, subtotal, currency, expires_at, qr_content, concepts, qr_png FROM ${LEAN_SCHEMA}.sales WHERE id = $1`,
    values: [id],
  });
  return result.rows[0];
}
