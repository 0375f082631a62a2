import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { pageOf, queryText } from '../../shared/platform/pagination.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { checkProduct } from '../../shared/products/check-product.js';
import { createMerchantProductSchema, updateMerchantProductSchema } from '../contract/products/product-schema.js';
import { productView } from '../contract/products/product-view.js';
import { findProduct, insertProducts, listProducts, updateProduct } from '../../shared/repositories/products.js';
import { accountMerchant, MERCHANT_REFUSALS } from '../account-resources.js';
import { bearerRule } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { pagedQuery } from '../routing/request-query.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

function skuTaken(skus: string[], field: (sku: string) => string): AppError {
  return new AppError(409, 'product_sku_exists', `The catalog already has ${skus.join(', ')}.`, {
    details: skus.map((sku) => ({ field: field(sku), code: 'duplicate', message: `sku "${sku}" is already in the catalog.` })),
  });
}

/** /v1/qrs/merchants/{merchantId}/products: the merchant's product catalog. */
const PATH = '/v1/qrs/merchants/{merchantId}/products';
const notFound = (productId: string) => new AppError(404, 'product_not_found', `No product ${productId} for this merchant.`);

export const productRoutes = [
  defineRoute({
    method: 'post',
    path: PATH,
    access: bearerRule,
    body: jsonRequest(createMerchantProductSchema),
    operationId: 'createProducts',
    summary: 'Add products to the catalog (all or none)',
    requestBody: { required: true, content: json('CreateMerchantProductRequest') },
    responses: {
      201: { description: 'The products created', content: json('MerchantProductList') },
      400: errorResponse('Invalid fields or SAT keys'),
      409: errorResponse('`product_sku_exists`: the merchant already has a product with this sku'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const products = ctx.state.body;
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
    },
  }),
  defineRoute({
    method: 'get',
    path: PATH,
    access: bearerRule,
    query: pagedQuery,
    operationId: 'listProducts',
    summary: 'List products (page envelope), search by sku or description',
    parameters: [{ name: 'search', in: 'query', schema: { type: 'string' } }],
    responses: { 200: { description: 'Page of MerchantProductResponse', content: json('MerchantProductPage') }, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const page = ctx.state.query;
      const search = queryText(ctx.query, 'search');
      const { rows, total } = await listProducts(deps.db, merchant.id, search, page);
      ctx.body = pageOf(
        rows.map((r) => productView(r, deps.catalogs)),
        total,
        page,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/{productId}`,
    access: bearerRule,
    operationId: 'getProduct',
    summary: 'Read a product',
    responses: { 200: { description: 'The product', content: json('MerchantProductResponse') }, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const row = await findProduct(deps.db, merchant.id, ctx.params.productId);
      if (!row) throw notFound(ctx.params.productId);
      ctx.body = productView(row, deps.catalogs);
    },
  }),
  defineRoute({
    method: 'put',
    path: `${PATH}/{productId}`,
    access: bearerRule,
    body: jsonRequest(updateMerchantProductSchema),
    operationId: 'updateProduct',
    summary: 'Update a product (any subset of fields)',
    requestBody: { required: true, content: json('UpdateMerchantProductRequest') },
    responses: {
      200: { description: 'The product', content: json('MerchantProductResponse') },
      400: errorResponse('Invalid fields or SAT keys'),
      409: errorResponse('`product_sku_exists`: another product of the merchant has this sku'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const existing = await findProduct(deps.db, merchant.id, ctx.params.productId);
      if (!existing) throw notFound(ctx.params.productId);
      const fields = ctx.state.body;
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
      if (!row) throw notFound(ctx.params.productId);
      ctx.body = productView(row, deps.catalogs);
    },
  }),
];
