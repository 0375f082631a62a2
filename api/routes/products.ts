import type { Router } from '@koa/router';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { pageOf, parsePageRequest, queryText } from '../../shared/platform/pagination.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { checkProduct } from '../../shared/products/check-product.js';
import { createMerchantProductSchema, updateMerchantProductSchema } from '../contract/products/product-schema.js';
import { productView } from '../contract/products/product-view.js';
import { findProduct, insertProducts, listProducts, updateProduct } from '../../shared/repositories/products.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountMerchant } from '../account-resources.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validateCreate = validator(createMerchantProductSchema);
const validateUpdate = validator(updateMerchantProductSchema);

function skuTaken(skus: string[], field: (sku: string) => string): AppError {
  return new AppError(409, 'product_sku_exists', `The catalog already has ${skus.join(', ')}.`, {
    details: skus.map((sku) => ({ field: field(sku), code: 'duplicate', message: `sku "${sku}" is already in the catalog.` })),
  });
}

/** /v1/qrs/merchants/{merchantId}/products: the merchant's product catalog. */
export function productRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/merchants/:merchantId/products');
  const routes = routesWith(router, managementAccess(deps).bearer);
  const body = jsonBody(deps.config.jsonBodyLimit);

  routes.post('/', body, async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const products = validateCreate(ctx.request.body);
    const details: ErrorDetail[] = [];
    const seen = new Map<string, number>();
    products.forEach((p, i) => {
      if (seen.has(p.sku)) details.push({ field: `[${i}].sku`, code: 'duplicate', message: `sku "${p.sku}" appears twice in the request.` });
      seen.set(p.sku, i);
      details.push(...checkProduct(p, `[${i}]`, { catalogs: deps.catalogs, onDate: satToday() }));
    });
    if (details.length > 0) throw new AppError(400, 'validation_failed', 'Some products are invalid; none was created.', { details });
    const result = await insertProducts(deps.db, merchant.id, products);
    if ('taken' in result) throw skuTaken(result.taken, (sku) => `[${seen.get(sku)}].sku`);
    ctx.status = 201;
    ctx.body = result.rows.map((r) => productView(r, deps.catalogs));
  });

  routes.get('/', async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const page = parsePageRequest(ctx.query);
    const search = queryText(ctx.query, 'search');
    const { rows, total } = await listProducts(deps.db, merchant.id, search, page);
    ctx.body = pageOf(
      rows.map((r) => productView(r, deps.catalogs)),
      total,
      page,
    );
  });

  routes.get('/:productId', async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const row = await findProduct(deps.db, merchant.id, ctx.params.productId ?? '');
    if (!row) throw new AppError(404, 'product_not_found', `No product ${ctx.params.productId} for this merchant.`);
    ctx.body = productView(row, deps.catalogs);
  });

  routes.put('/:productId', body, async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const existing = await findProduct(deps.db, merchant.id, ctx.params.productId ?? '');
    if (!existing) throw new AppError(404, 'product_not_found', `No product ${ctx.params.productId} for this merchant.`);
    const fields = validateUpdate(ctx.request.body);
    // The keys and taxes are checked as the product will be after the update.
    const details = checkProduct(
      {
        sku: existing.sku,
        description: existing.description,
        unitPrice: 0,
        satUnitKey: fields.satUnitKey ?? existing.sat_unit_key,
        satProductServiceKey: fields.satProductServiceKey ?? existing.sat_product_service_key,
        satTaxObjectKey: fields.satTaxObjectKey ?? existing.sat_tax_object_key,
        taxes: fields.taxes ?? existing.taxes,
      },
      '',
      { catalogs: deps.catalogs, onDate: satToday() },
    );
    if (details.length > 0) throw new AppError(400, 'validation_failed', 'The product has invalid fields.', { details });
    const row = await updateProduct(deps.db, merchant.id, existing.id, fields);
    if (row === 'sku_taken') throw skuTaken([fields.sku ?? ''], () => 'sku');
    if (!row) throw new AppError(404, 'product_not_found', `No product ${ctx.params.productId} for this merchant.`);
    ctx.body = productView(row, deps.catalogs);
  });

  return router;
}
