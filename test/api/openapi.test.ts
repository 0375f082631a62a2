import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Ajv } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { postQr, qrBody } from '../helpers/qr-body.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { EARLIER_QR_IMAGE_ROUTE } from '../../api/routes/public-qr-image.js';
import { declaredOperations } from '../helpers/declared-operations.js';
import { qrCreateRequestSchema } from '../../api/contract/qrs/qr-request-schema.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

describe('GET /openapi.json', () => {
  it('publishes the contract with the very request schema the API validates with', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    // The same schema, less the `$id` ajv registers it under (issue #29: an `$id` breaks `#/components/…` references).
    const { $id: _id, ...requestSchema } = qrCreateRequestSchema;
    expect(res.body.components.schemas.QrCreateRequest).to.deep.equal(JSON.parse(JSON.stringify(requestSchema)));
    expect(
      Object.entries(res.body.components.schemas as Record<string, object>)
        .filter(([, schema]) => JSON.stringify(schema).includes('"$id"'))
        .map(([name]) => name),
    ).to.deep.equal([]);
    expect(Object.keys(res.body.paths['/v1/qrs'].post.responses)).to.include.members(['201', '400', '401', '404', '409', '422']);
  });

  it('GET / points to /docs: a browser is redirected there, a client gets the links as JSON', async () => {
    const browser = await fetch(`${harness().baseUrl}/`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    expect(browser.status).to.equal(302);
    expect(browser.headers.get('location')).to.equal('/docs');
    const client = await call('GET', '/');
    expect(client.status).to.equal(200);
    expect(client.body).to.deep.equal({ service: 'autofactura-qr', docs: '/docs', openapi: '/openapi.json', health: '/health' });
  });

  it('documents every declared route but the earlier spellings kept for printed links, and nothing else (issue #42)', async () => {
    const { paths } = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const declared = declaredOperations().map((op) => `${op.method.toLowerCase()} ${op.template}`);
    expect(declared).to.include.members(['post /v1/qrs', 'get /v1/qrs/{qrId}', 'post /v1/qrs/issuers', 'post /v1/auth/token', 'post /v1/public/qrs/confirm', 'get /q']);
    // The QR image's earlier path stays answered for links already printed, but is not documented: it is
    // ambiguous with /v1/public/qrs/code/{code} (issue #29).
    const earlierImage = `get ${EARLIER_QR_IMAGE_ROUTE}`;
    expect(declared).to.include(earlierImage);
    const documented = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(documented).to.have.members(declared.filter((r) => r !== earlierImage));
  });

  it('answers /docs with the reference page: Redoc over /openapi.json, its one script allowed by a fresh nonce, nothing from another origin', async () => {
    const pageOf = async () => {
      const res = await call('GET', '/docs');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      return { html: (res.body as Buffer).toString('utf8'), csp: res.headers.get('content-security-policy') ?? '' };
    };
    const { html, csp } = await pageOf();
    expect(html).to.match(/<redoc spec-url="\/openapi\.json"/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(html.match(/<script[^>]*>/g)).to.deep.equal([`<script nonce="${nonce!}" src="${/src="(\/docs\/assets\/[^"]+)"/.exec(html)![1]!}">`]);
    expect(csp).to.contain("default-src 'none'").and.contain("connect-src 'self'").and.not.contain('unsafe-eval');
    expect(html).to.not.match(/(src|href)="https?:/i);
    expect((await pageOf()).csp).to.not.contain(nonce);
  });

  it('names every operation from its declaration: an id each, unique, camelCase, a method name (issues #29, #42)', async () => {
    const { paths } = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { operationId?: string }>> };
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))
        .map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, id: op.operationId })),
    );
    const declared = new Map(declaredOperations().map((op) => [`${op.method} ${op.template}`, op.operationId]));
    expect(operations.filter((op) => op.id === undefined || op.id !== declared.get(op.key)).map((op) => op.key)).to.deep.equal([]);
    const ids = operations.map((op) => op.id!);
    expect(ids.filter((id) => !/^[a-z]+(?:[A-Z][a-z0-9]*)*$/.test(id))).to.deep.equal([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).to.deep.equal([]);
    expect(ids).to.include.members(['createQr', 'getQr', 'listMerchants', 'regenerateMerchantApiKey', 'createProducts', 'getInvoiceXml', 'confirmBuyerInvoice', 'getBuyerPage']);
    // Not a path spelled out as a name (the earlier ids were such as getQrsMerchantsByMerchantIdProductsByProductId).
    expect(ids.filter((id) => /^(post|put|patch)|By[A-Z]\w*Id|^getQrs/.test(id))).to.deep.equal([]);
  });

  it("passes Redocly's recommended rules (redocly.yaml) with no error and no warning, every operation tagged and its security stated (issues #21, #29)", async function () {
    this.timeout(120_000);
    const document = (await call('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown; tags?: string[] }>>;
      tags: { name: string }[];
    };
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([m]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))
        .map(([, op]) => op),
    );
    expect(operations.every((op) => Array.isArray(op.security))).to.equal(true);
    // One chapter of the reference each, among the listed ones.
    const tags = document.tags.map((t) => t.name);
    expect(operations.filter((op) => op.tags?.length !== 1 || !tags.includes(op.tags[0]!)).map((op) => op.operationId)).to.deep.equal([]);
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const root = new URL('../../', import.meta.url).pathname;
    const lint = await promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] };
    expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });

  it('turns into TypeScript types a strict compiler accepts, through a second consumer: openapi-typescript, then tsc --strict (issue #29)', async function () {
    this.timeout(120_000);
    const document = (await call('GET', '/openapi.json')).body as Parameters<typeof openapiTS>[0];
    const dir = mkdtempSync(join(tmpdir(), 'openapi-types-'));
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(document)));
    // A caller's use of the types: what a POS sends and gets back for createQr, by the operation's name.
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import type { components, operations } from './schema.js';",
        "type CreateQr = operations['createQr'];",
        "export const storeUid: CreateQr['requestBody']['content']['application/json']['store_uid'] = 'dev-store-1';",
        "export const qrId = (answer: CreateQr['responses'][201]['content']['application/json']): string => answer.qr_id;",
        "export const sale = (s: components['schemas']['BuyerSale']): components['schemas']['BuyerConfirmation'] => s.confirmation;",
        '',
      ].join('\n'),
    );
    const root = new URL('../../', import.meta.url).pathname;
    const tsc = await promisify(execFile)(
      join(root, 'node_modules/.bin/tsc'),
      ['--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', join(dir, 'schema.ts'), join(dir, 'use.ts')],
      { cwd: dir },
    ).catch((err: { stdout?: string; code?: number }) => ({ stdout: `exit ${String(err.code)}\n${err.stdout ?? ''}` }));
    expect(tsc.stdout).to.equal('');
  });

  it("the QR transaction answers validate against the document's QrTransaction schema, pending and invoiced (issue #21)", async function () {
    this.timeout(60_000);
    const document = (await call('GET', '/openapi.json')).body as {
      components: { schemas: Record<string, object> };
      paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
    };
    expect(document.paths['/v1/qrs']!.post!.responses['201']!.content)
      .to.have.nested.property('application/json.schema')
      .that.deep.equals({ $ref: '#/components/schemas/QrTransaction' });
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajvFormats.default.default(ajv, ['date-time']);
    const validate = ajv.compile(document.components.schemas.QrTransaction!);
    const check = (body: unknown) => expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
    const account = await harness().bootstrap();
    check((await postQr(account, qrBody(account.storeUid))).body);
    const events = await queueEvents('stamp');
    const link = await newQrLink(account);
    try {
      expect((await confirmReviewed(link)).status).to.equal(202);
      await stamped(events, link.qrId);
    } finally {
      await events.close();
    }
    const invoiced = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
    expect(invoiced.status).to.equal('INVOICED');
    check(invoiced);
  });
});
