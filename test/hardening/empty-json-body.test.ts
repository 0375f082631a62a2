import { request } from 'node:http';
import { expect } from 'chai';
import { harness } from '../helpers/harness.js';

/** A POST whose body is sent chunked and holds nothing (or only whitespace): Content-Length is absent. */
function postChunked(path: string, headers: Record<string, string>, chunk: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, harness().baseUrl);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    if (chunk) req.write(chunk);
    req.end();
  });
}

describe('issue #39: an empty JSON body is not an empty object', () => {
  it('answers 400 for a chunked body with nothing in it (body_required) or only whitespace, and records nothing', async () => {
    const account = await harness().bootstrap();
    const before = await harness().deps.db('invoice_exports').count({ n: '*' });
    const nothing = await postChunked('/v1/qrs/invoices/exports', { 'x-api-key': account.apiKey }, '');
    expect(nothing.status).to.equal(400);
    expect((JSON.parse(nothing.body) as { error: { code: string } }).error.code).to.equal('body_required');
    // Whitespace alone is no JSON document: the parser's 400.
    for (const chunk of ['   ', '\r\n']) {
      const res = await postChunked('/v1/qrs/invoices/exports', { 'x-api-key': account.apiKey }, chunk);
      expect(res.status, JSON.stringify(chunk)).to.equal(400);
      expect((JSON.parse(res.body) as { error: { code: string } }).error.code).to.equal('malformed_json');
    }
    expect(await harness().deps.db('invoice_exports').count({ n: '*' })).to.deep.equal(before);
  });
});
