import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { harness } from '../helpers/harness.js';
import { call, callForm } from '../helpers/http.js';
import { DOCUMENT, operations, validatorOf } from '../helpers/openapi-contract.js';
import { postQr } from '../helpers/qr-body.js';
import { qrCreateRequestSchema } from '../../api/contract/qrs/qr-request-schema.js';
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

  it('gives every upload (multipart/form-data) a named form, every field a description, every file part its media types, an example and a curl sample', () => {
    const forms = operations().flatMap(({ method, path, op }) => {
      const form = op.requestBody?.content['multipart/form-data'];
      return form ? [{ where: `${method} ${path}`, form, op: op as typeof op & { 'x-codeSamples'?: { source: string }[] } }] : [];
    });
    expect(forms.map((f) => f.where)).to.include.members([
      'post /v1/qrs/merchants/{merchantId}/invoice-mode',
      'post /v1/qrs/merchants/{merchantId}/logos',
      'put /v1/qrs/issuers/{issuerId}',
      'post /v1/public/qrs/csf',
    ]);
    for (const { where, form, op } of forms) {
      const name = String(form.schema?.$ref).replace('#/components/schemas/', '');
      const schema = DOCUMENT.components.schemas[name] as { properties: Record<string, { format?: string; description?: string }> };
      expect(schema, where).to.be.an('object');
      const fields = Object.entries(schema.properties);
      expect(
        fields.filter(([, p]) => !p.description).map(([field]) => field),
        where,
      ).to.deep.equal([]);
      const files = fields.filter(([, p]) => p.format === 'binary').map(([field]) => field);
      expect(Object.keys((form as { encoding?: object }).encoding ?? {}), where).to.have.members(files);
      expect(Object.keys(form.example as object), where).to.include.members(files);
      const curl = op['x-codeSamples']?.[0]?.source ?? '';
      for (const field of files) expect(curl, where).to.contain(`-F '${field}=@${(form.example as Record<string, string>)[field]}'`);
    }
  });

  it("renews a CSD with the reference's upload example: SAT's test CSD files it names, its password, 200", async () => {
    const account = await harness().bootstrap();
    const form = DOCUMENT.paths['/v1/qrs/merchants/{merchantId}/invoice-mode']!.put!.requestBody!.content['multipart/form-data']!;
    const example = form.example as Record<string, string>;
    const testCsd = new URL('../../data/sat/test-csd/', import.meta.url);
    const parts = Object.fromEntries(
      Object.entries(example).map(([field, value]) => [field, field.endsWith('File') ? { data: readFileSync(new URL(value, testCsd)), fileName: value } : value]),
    );
    const res = await callForm('PUT', `/v1/qrs/merchants/${account.merchantId}/invoice-mode`, account.accessToken, parts);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.csdDataRequest).to.include({ cerFileName: example['csdDataRequest.cerFile'], serialNumberPrefix: example['csdDataRequest.serialNumberPrefix'] });
  });

  it("POST /v1/qrs as the reference's example shows it answers 201 (with this account's store; its expiry is relative to the day served)", async () => {
    const account = await harness().bootstrap();
    const example = DOCUMENT.paths['/v1/qrs']!.post!.requestBody!.content['application/json']!.example as Record<string, unknown>;
    const body = { ...example, store_uid: account.storeUid, sale_id: `docs-${randomUUID()}` };
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
