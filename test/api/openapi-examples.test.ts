import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { DOCUMENT, operations, validatorOf } from '../helpers/openapi-contract.js';
import { postQr } from '../helpers/qr-body.js';
import { qrCreateRequestSchema } from '../../shared/qr/qr-request-schema.js';
import type { CatalogName } from '../../shared/sat/catalogs.js';

/** Every `description` in a schema, however deep. */
function descriptions(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return Object.entries(schema).flatMap(([k, v]) => (k === 'description' && typeof v === 'string' ? [v] : descriptions(v)));
}

/** Issue #21: every request and answer of the reference has a named schema and an example, and the examples are true. */
describe('OpenAPI examples', () => {
  const media = operations().flatMap(({ method, path, op }) => [
    ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]) => ({ where: `${method} ${path} request ${type}`, type, media: m })),
    ...Object.entries(op.responses).flatMap(([status, r]) =>
      Object.entries(r.content ?? {}).map(([type, m]) => ({ where: `${method} ${path} ${status} ${type}`, type, media: m })),
    ),
  ]);
  const json = media.filter((m) => m.type === 'application/json');

  it('gives every JSON request and answer, errors included, a named schema and an example', () => {
    expect(json.filter((m) => !/^#\/components\/schemas\//.test(typeof m.media.schema?.$ref === 'string' ? m.media.schema.$ref : '')).map((m) => m.where)).to.deep.equal(
      // The document itself is the one JSON answer whose schema is not ours to name.
      ['get /openapi.json 200 application/json'],
    );
    expect(json.filter((m) => m.media.example === undefined && m.where !== 'get /openapi.json 200 application/json').map((m) => m.where)).to.deep.equal([]);
  });

  it('gives every answer with a body a schema', () => {
    const bodiless = operations().flatMap(({ method, path, op }) =>
      Object.entries(op.responses)
        .filter(([status, r]) => !r.content && !['204', '302', '303'].includes(status) && !(path === '/q' && /^text\/html/.test(r.description)))
        .map(([status]) => `${method} ${path} ${status}`),
    );
    expect(bodiless).to.deep.equal([]);
  });

  it('validates every example against its schema', () => {
    const wrong = media
      .filter((m) => m.media.example !== undefined && m.media.schema)
      .map((m) => ({ where: m.where, validate: validatorOf(m.media.schema!), example: m.media.example }))
      .filter(({ validate, example }) => !validate(example))
      .map(({ where, validate }) => `${where}: ${JSON.stringify(validate.errors)}`);
    expect(wrong).to.deep.equal([]);
    expect(media.filter((m) => m.media.example !== undefined).length).to.be.above(150);
  });

  it("POST /v1/qrs as the reference's example shows it answers 201 (with this account's store and an expiry within 31 days)", async () => {
    const account = await harness().bootstrap();
    const example = DOCUMENT.paths['/v1/qrs']!.post!.requestBody!.content['application/json']!.example as Record<string, unknown>;
    const body = { ...example, store_uid: account.storeUid, sale_id: `docs-${randomUUID()}`, expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString() };
    const res = await postQr(account, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.operation_data[0].sat_product_service_desc).to.be.a('string');
    expect((await call('GET', `/v1/qrs/${res.body.qr_id as string}`, { headers: { 'X-API-Key': account.apiKey } })).status).to.equal(200);
  });

  it("explains the QR request's SAT keys with SAT's own words: each `KEY (meaning)` is what the catalog says", () => {
    const cited = descriptions(qrCreateRequestSchema).flatMap((text) => {
      const catalog = /\b(c_[A-Za-z]+)\b/.exec(text)?.[1];
      return catalog ? [...text.matchAll(/\b([A-Z0-9]{1,4}) \(([^)]+)\)/g)].map(([, key, meaning]) => ({ catalog, key: key!, meaning })) : [];
    });
    expect(cited.length).to.be.above(20);
    const catalogs = harness().deps.catalogs;
    const wrong = cited.filter((c) => catalogs.description(c.catalog as CatalogName, c.key) !== c.meaning);
    expect(wrong).to.deep.equal([]);
  });
});
