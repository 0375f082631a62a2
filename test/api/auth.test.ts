import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { revokeAccessTokens } from '../../shared/repositories/access-tokens.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';

describe('POST /v1/auth/token and bearer authentication', () => {
  const name = `auth-${randomUUID()}`;
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap(name);
  });

  const listIssuers = (token: string) => call('GET', '/v1/qrs/issuers', { headers: { Authorization: `Bearer ${token}` } });

  it('issues a bearer token for client credentials sent as JSON, as a form, or with HTTP Basic', async () => {
    const json = await call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret } });
    expect(json.status).to.equal(200);
    expect(json.body).to.include({ token_type: 'Bearer', expires_in: 3600 });
    expect(json.headers.get('cache-control')).to.equal('no-store');
    expect((await listIssuers(json.body.access_token)).status).to.equal(200);

    const form = await call('POST', '/v1/auth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret! }).toString(),
    });
    expect(form.status).to.equal(200);
    const basic = await call('POST', '/v1/auth/token', {
      headers: { Authorization: `Basic ${Buffer.from(`${account.clientId}:${account.clientSecret}`).toString('base64')}` },
      body: { grant_type: 'client_credentials' },
    });
    expect(basic.status).to.equal(200);
    expect(new Set([json.body.access_token, form.body.access_token, basic.body.access_token]).size).to.equal(3);
    const stored = await harness().deps.db('access_tokens').where({ account_id: account.accountId }).select('token_hash');
    expect(JSON.stringify(stored)).to.not.include(json.body.access_token);
  });

  it('refuses wrong credentials (401), other grant types and missing fields (400)', async () => {
    expectError(
      await call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: account.clientId, client_secret: 'cs_wrong' } }),
      401,
      'invalid_client',
    );
    expectError(
      await call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: 'cli_nobody', client_secret: account.clientSecret } }),
      401,
      'invalid_client',
    );
    expectError(
      await call('POST', '/v1/auth/token', { body: { grant_type: 'password', client_id: account.clientId, client_secret: account.clientSecret } }),
      400,
      'unsupported_grant_type',
    );
    const missing = await call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials' } });
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['client_id', 'client_secret']);
  });

  it('answers 401 for a missing, unknown, expired or revoked bearer token', async () => {
    const none = await call('GET', '/v1/qrs/issuers');
    expectError(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).to.equal('Bearer');
    expectError(await listIssuers('at_0123456789abcdefghijklmnopqrstuvwxyzABCD'), 401, 'unauthorized');
    expectError(await listIssuers(account.apiKey), 401, 'unauthorized');

    const other = await harness().bootstrap();
    await harness()
      .deps.db('access_tokens')
      .where({ account_id: other.accountId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectError(await listIssuers(other.accessToken), 401, 'unauthorized');

    const fresh = await harness().bootstrap(name);
    expect((await listIssuers(fresh.accessToken)).status).to.equal(200);
    expect(await revokeAccessTokens(harness().deps.db, { token: fresh.accessToken })).to.equal(1);
    expectError(await listIssuers(fresh.accessToken), 401, 'unauthorized');
  });
});
