import { containsPattern, type Db } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { toFixed6 } from '../domain/money.js';
import type { PageRequest } from '../platform/pagination.js';
import type { ProductFields, ProductTax } from '../products/product.js';
import type { ProductKeys } from '../qr/resolve-concept-keys.js';

export interface ProductRow {
  id: string;
  merchant_id: string;
  sku: string;
  description: string;
  unit_price: string;
  sat_unit_key: string;
  sat_product_service_key: string;
  sat_tax_object_key: string;
  taxes: ProductTax[];
  created_at: Date;
  updated_at: Date;
}

function columns(p: Partial<ProductFields>) {
  const out: Record<string, unknown> = {
    sku: p.sku,
    description: p.description,
    unit_price: p.unitPrice === undefined ? undefined : toFixed6(p.unitPrice),
    sat_unit_key: p.satUnitKey,
    sat_product_service_key: p.satProductServiceKey,
    sat_tax_object_key: p.satTaxObjectKey,
    taxes: p.taxes === undefined ? undefined : JSON.stringify(p.taxes),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** All or nothing: when any sku already exists, nothing is inserted and those skus are returned. */
export async function insertProducts(db: Db, merchantId: string, products: ProductFields[]): Promise<{ rows: ProductRow[] } | { taken: string[] }> {
  try {
    return await db.transaction(async (trx) => {
      const rows = (await trx('merchant_products')
        .insert(products.map((p) => ({ id: newId('product'), merchant_id: merchantId, ...columns({ taxes: [], ...p }) })))
        .onConflict(['merchant_id', 'sku'])
        .ignore()
        .returning('*')) as ProductRow[];
      if (rows.length === products.length) return { rows };
      const inserted = new Set(rows.map((r) => r.sku));
      throw new SkusTaken(products.map((p) => p.sku).filter((sku) => !inserted.has(sku)));
    });
  } catch (err) {
    if (err instanceof SkusTaken) return { taken: err.skus };
    throw err;
  }
}

/** Thrown inside the transaction so the rows that did insert are rolled back. */
class SkusTaken extends Error {
  constructor(readonly skus: string[]) {
    super(`skus already in the catalog: ${skus.join(', ')}`);
  }
}

export async function findProduct(db: Db, merchantId: string, productId: string): Promise<ProductRow | undefined> {
  return (await db('merchant_products').where({ id: productId, merchant_id: merchantId }).first()) as ProductRow | undefined;
}

export async function updateProduct(db: Db, merchantId: string, productId: string, fields: Partial<ProductFields>): Promise<ProductRow | undefined | 'sku_taken'> {
  try {
    const [row] = (await db('merchant_products')
      .where({ id: productId, merchant_id: merchantId })
      .update({ ...columns(fields), updated_at: db.fn.now() })
      .returning('*')) as ProductRow[];
    return row;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'sku_taken';
    throw err;
  }
}

export async function listProducts(db: Db, merchantId: string, search: string | undefined, page: PageRequest): Promise<{ rows: ProductRow[]; total: number }> {
  const base = db('merchant_products').where({ merchant_id: merchantId });
  if (search) {
    base.andWhere((w) => {
      w.whereILike('sku', containsPattern(search)).orWhereILike('description', containsPattern(search));
    });
  }
  const [count, rows] = await Promise.all([
    base.clone().count<{ count: string }[]>('* as count'),
    base
      .clone()
      .orderBy([{ column: 'sku' }])
      .limit(page.size)
      .offset(page.page * page.size),
  ]);
  return { rows: rows as ProductRow[], total: Number(count[0]?.count ?? 0) };
}

/** The SAT keys of the merchant's products with these skus, for QR concepts that name them. */
export async function productKeysBySku(db: Db, merchantId: string, skus: string[]): Promise<Map<string, ProductKeys>> {
  if (skus.length === 0) return new Map();
  const rows = (await db('merchant_products')
    .where({ merchant_id: merchantId })
    .whereIn('sku', skus)
    .select('sku', 'sat_unit_key', 'sat_product_service_key', 'sat_tax_object_key')) as (ProductKeys & { sku: string })[];
  return new Map(rows.map(({ sku, ...keys }) => [sku, keys]));
}
