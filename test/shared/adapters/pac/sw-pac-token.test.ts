import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { startFakePacServer, type FakePacServer } from '../../../../fakes/pac-server.js';
import { PacCredentialsRejected, PacRefused } from '../../../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../../../shared/adapters/pac/sw-pac-client.js';
import { sealedInvoice } from '../../../fixtures/cfdi/sealed-invoice.js';
import { rejection } from '../../../helpers/rejection.js';

const TIMEOUT_MS = 5000;
const HOUR_MS = 3_600_000;

describe("SW's two kinds of token: the portal's, and one the client gets with a user and password", function () {
  this.timeout(4 * TIMEOUT_MS);
  let pac: FakePacServer;
  const statusUrl = () => `${pac.url}/ConsultaCFDIService.svc`;
  const withPassword = (nowMs?: () => number) => swPacClient(pac.url, { ...pac.credentials }, TIMEOUT_MS, statusUrl(), nowMs);
  const outcomes = () => pac.auth.map((a) => a.outcome);
  const stamps = () => pac.calls.filter((c) => c.outcome === 'stamped' || c.outcome === 'previously stamped').length;

  beforeEach(async () => {
    pac = await startFakePacServer();
    // What is tested is the token, not the document: no xmllint run per stamp.
    pac.validates = false;
  });
  afterEach(() => pac.close());

  it('authenticates once with the user and password and stamps with that token while it lives', async () => {
    const client = withPassword();
    for (const price of ['101', '102', '103']) await client.stamp(sealedInvoice(price), {});
    expect(outcomes()).to.deep.equal(['authenticated']);
    expect(stamps()).to.equal(3);
  });

  it('renews the token before its 2 hours are over, without waiting for a 401', async () => {
    let clock = Date.now();
    const client = withPassword(() => clock);
    await client.stamp(sealedInvoice('111'), {});
    clock += 2 * HOUR_MS - 4 * 60_000;
    await client.stamp(sealedInvoice('112'), {});
    expect(outcomes()).to.deep.equal(['authenticated', 'authenticated']);
  });

  it('a token expired early (401) is renewed once and the call made again: the stamp succeeds', async () => {
    const client = withPassword();
    await client.stamp(sealedInvoice('121'), {});
    pac.expireTokens();
    const stamp = await client.stamp(sealedInvoice('122'), {});
    expect(stamp.uuid).to.match(/^[0-9A-F-]{36}$/);
    expect(outcomes()).to.deep.equal(['authenticated', '401 stamp', 'authenticated']);
    expect(stamps()).to.equal(2);
  });

  it('concurrent calls share one authentication, and one renewal after their tokens expired', async () => {
    const client = withPassword();
    await Promise.all(['131', '132', '133', '134', '135', '136'].map((price) => client.stamp(sealedInvoice(price), {})));
    expect(outcomes()).to.deep.equal(['authenticated']);
    pac.expireTokens();
    await Promise.all(['141', '142', '143', '144', '145', '146'].map((price) => client.stamp(sealedInvoice(price), {})));
    expect(outcomes().filter((o) => o === 'authenticated')).to.have.length(2);
    expect(outcomes().filter((o) => o === '401 stamp')).to.have.length(6);
    expect(stamps()).to.equal(12);
  });

  it('a cancellation refused for its token is renewed and sent again too', async () => {
    const client = withPassword();
    await client.stamp(sealedInvoice('151'), {});
    pac.expireTokens();
    const request = { uuid: randomUUID(), issuerRfc: 'EKU9003173C9', motive: '02' as const, certificateDer: Buffer.alloc(0), privateKeyDer: Buffer.alloc(0), password: 'x' };
    // SW's generic refusal, the cause in its detail (issue #38, item 2): reaching it means the token was taken.
    const refused = await rejection(client.cancel(request), PacRefused);
    expect([refused.pacCode, refused.detail]).to.deep.equal(['CACFDI33', 'Son necesarios el .Cer y el .Key en formato B64']);
    expect(outcomes()).to.deep.equal(['authenticated', '401 cancel', 'authenticated']);
  });

  it("a wrong password is PacCredentialsRejected with SW's AU2000, never the password", async () => {
    const password = 'the-wrong-secret-password';
    const client = swPacClient(pac.url, { user: pac.credentials.user, password }, TIMEOUT_MS, statusUrl());
    const rejected = await rejection(client.stamp(sealedInvoice('161'), {}), PacCredentialsRejected);
    expect(rejected.problem).to.equal('authentication refused');
    expect(rejected.message).to.contain('AU2000').and.not.contain(password);
    expect(outcomes()).to.deep.equal(['refused AU2000']);
    expect(stamps()).to.equal(0);
  });

  it('a token the PAC refuses right after its renewal is PacCredentialsRejected after one retry, not a loop', async () => {
    pac.tokenLifetimeMs = 0; // every token is born expired
    const rejected = await rejection(withPassword().stamp(sealedInvoice('171'), {}), PacCredentialsRejected);
    expect(rejected.problem).to.equal('token rejected');
    expect(outcomes()).to.deep.equal(['authenticated', '401 stamp', 'authenticated', '401 stamp']);
  });

  it("the portal's token regenerated: the old one gets SW's 401 and is PacCredentialsRejected, the new one stamps", async () => {
    const old = pac.token;
    await swPacClient(pac.url, old, TIMEOUT_MS, statusUrl()).stamp(sealedInvoice('181'), {});
    const fresh = pac.regenerateToken();
    const res = await fetch(`${pac.url}/v4/cfdi33/stamp/v4`, { method: 'POST', headers: { authorization: `Bearer ${old}` } });
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ status: 'error', message: 'AU4000 - No fue posible validar el token.', messageDetail: null });
    const rejected = await rejection(swPacClient(pac.url, old, TIMEOUT_MS, statusUrl()).stamp(sealedInvoice('182'), {}), PacCredentialsRejected);
    expect(rejected.problem).to.equal('token rejected');
    expect(rejected.message).to.contain('AU4000').and.not.contain(old);
    await swPacClient(pac.url, fresh, TIMEOUT_MS, statusUrl()).stamp(sealedInvoice('182'), {});
    expect(stamps()).to.equal(2);
  });

  it("SW's authentication answer: the token and its expiry as Unix seconds; the older header form works too", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await fetch(`${pac.url}/v2/security/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pac.credentials) });
    const body = (await res.json()) as { status: string; data: { token: string; expires_in: number } };
    expect(res.status).to.equal(200);
    expect(body.status).to.equal('success');
    expect(body.data.token.split('.')).to.have.length(3);
    expect(body.data.expires_in).to.be.within(before + 7199, before + 7201);
    const v1 = await fetch(`${pac.url}/security/authenticate`, { method: 'POST', headers: { user: pac.credentials.user, password: pac.credentials.password } });
    expect(v1.status).to.equal(200);
  });
});
