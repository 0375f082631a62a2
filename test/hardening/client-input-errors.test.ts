/**
 * Issue #28 item 8: client input that answered 500 answers 400 with the error object: a 100,000-deep body
 * (stack overflow walking it), lone surrogates (PostgreSQL refuses them in jsonb), broken %-escapes in HTTP
 * Basic credentials (URIError).
 */
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import type { AppState } from '../../api/context.js';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { requestContext } from '../../api/middleware/request-context.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { sampleSale } from '../fixtures/sample-sale.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('client input never answers 500 (issue #28)', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });
  const transactions = async () => (await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).count({ n: '*' }).first())?.n;
  const postRaw = (rawBody: string) => call('POST', '/v1/qrs', { headers: { ...qrHeaders(account), 'content-type': 'application/json' }, rawBody });

  it('POST /v1/qrs with 100,000-deep JSON is a 400 malformed_json, and nothing is recorded', async () => {
    const arrays = await postRaw(deep(100_000));
    expectError(arrays, 400, 'malformed_json');
    expect(arrays.body.error.message).to.contain('32 levels');
    const objects = await postRaw(`${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`);
    expectError(objects, 400, 'malformed_json');
    // A real sale's nesting is far below the limit; 33 levels already is too deep.
    const body = JSON.stringify(qrBody(account.storeUid, { metadata: { pos: 'caja-3' } })).replace(/"pos":"caja-3"/, `"pos":"caja-3","x":${deep(31)}`);
    expectError(await postRaw(body), 400, 'malformed_json');
    expect(await transactions()).to.equal('0');
  });

  it('a lone surrogate in a description or a metadata value is a 400 naming the field, and nothing is recorded', async () => {
    const [first, ...rest] = sampleSale('s', new Date()).operation_data;
    const description = await postRaw(JSON.stringify(qrBody(account.storeUid, { operation_data: [{ ...first!, description: 'Magna \uD800 10 L' }, ...rest] })));
    expectError(description, 400, 'validation_failed');
    expect(description.body.error.details).to.have.length(1);
    expect(description.body.error.details[0]).to.include({ field: 'operation_data[0].description' });
    expect(description.body.error.details[0].message).to.contain('U+D800');
    // jsonb column: PostgreSQL's 22P02 ("Unicode low surrogate must follow a high surrogate") was a 500.
    const metadata = await postRaw(JSON.stringify(qrBody(account.storeUid, { metadata: { pos: 'caja \uDC00' } })));
    expectError(metadata, 400, 'validation_failed');
    expect(metadata.body.error.details[0]).to.include({ field: 'metadata.pos', code: 'invalid_character' });
    expect(await transactions()).to.equal('0');
  });

  it('POST /v1/auth/token with a broken %-escape in HTTP Basic credentials is a 400 naming the header', async () => {
    for (const credentials of [`%E0%A4%A:${account.clientSecret!}`, `${account.clientId}:%zz`, `${account.clientId}:%`, `%ED%A0%80:x`]) {
      const res = await call('POST', '/v1/auth/token', {
        headers: { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
        body: { grant_type: 'client_credentials' },
      });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details[0], credentials).to.include({ field: 'Authorization', code: 'invalid_format' });
    }
    // Correctly escaped credentials still work.
    const ok = await call('POST', '/v1/auth/token', {
      headers: { Authorization: `Basic ${Buffer.from(`${encodeURIComponent(account.clientId)}:${encodeURIComponent(account.clientSecret!)}`).toString('base64')}` },
      body: { grant_type: 'client_credentials' },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it("PostgreSQL's invalid_text_representation (22P02) from client text maps to 400 in the one error handler", async () => {
    // What a lone surrogate did before the body check refused it: a jsonb value PostgreSQL cannot read.
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestContext(pino({ level: 'silent' })));
    app.use(errorHandler());
    app.use(async (ctx) => {
      ctx.body = await harness().deps.db.raw('select ?::jsonb as v', [JSON.stringify({ pos: 'caja \uD800' })]);
    });
    const server: Server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      const body = await res.json();
      expectError({ status: res.status, body, headers: res.headers }, 400, 'malformed_request');
    } finally {
      server.close();
    }
  });
});
