import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { call, callForm, expectError } from '../helpers/http.js';

const KEMPER = { taxId: 'EKU9003173C9', businessName: 'ESCUELA KEMPER URGATE', taxRegimeCode: '601' };
const XOCHILT = { taxId: 'CACX7605101P8', businessName: 'XOCHILT CASAS CHAVEZ', taxRegimeCode: '612' };

describe('issuers (/v1/qrs/issuers)', () => {
  let account: BootstrapResult;
  let otherAccount: BootstrapResult;
  let groupId: string;
  const as = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });

  before(async () => {
    account = await harness().bootstrap();
    otherAccount = await harness().bootstrap();
    // A second group of the same account, so the test starts with no issuer in it.
    groupId = `grp_${randomUUID().replace(/-/g, '')}`;
    await harness()
      .deps.db('groups')
      .insert({ id: groupId, account_id: account.accountId, name: `g-${groupId}` });
  });

  const body = (overrides: Record<string, unknown> = {}) => ({
    groupId,
    alias: 'Matriz',
    idCif: '19010374512',
    email: 'facturas@example.mx',
    zip: '42501',
    ...KEMPER,
    ...overrides,
  });
  const create = (b: unknown, a = account) => call('POST', '/v1/qrs/issuers', { headers: as(a), body: b });

  it('creates an issuer: 201 with the spec fields, the regime description and status ACTIVE', async () => {
    const res = await create(body({ taxId: 'eku9003173c9' }));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.deep.include({
      groupId,
      alias: 'Matriz',
      taxId: 'EKU9003173C9',
      idCif: '19010374512',
      businessName: 'ESCUELA KEMPER URGATE',
      email: 'facturas@example.mx',
      zip: '42501',
      taxRegime: { code: '601', description: 'General de Ley Personas Morales' },
      status: 'ACTIVE',
    });
    expect(res.body.invoiceDataId).to.match(/^inv_data_[A-Za-z0-9_-]{16,}$/);
    const got = await call('GET', `/v1/qrs/issuers/${res.body.invoiceDataId}`, { headers: as(account) });
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(res.body);
  });

  it('answers 409 for the same RFC twice in a group, also for concurrent requests', async () => {
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => create(body({ ...XOCHILT, alias: 'Sucursal' }))));
    expect(concurrent.map((r) => r.status).sort()).to.deep.equal([201, 409, 409, 409, 409, 409, 409, 409]);
    expectError(
      concurrent.find((r) => r.status === 409)!,
      409,
      'issuer_already_exists',
    );
    expect(await harness().deps.db('issuers').where({ group_id: groupId, rfc: XOCHILT.taxId })).to.have.length(1);
  });

  it('validates every field: 400 with details[], nothing written', async () => {
    const before = await harness().deps.db('issuers').where({ account_id: account.accountId }).count<{ count: string }[]>('* as count');
    const missing = await create({ groupId });
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.include.members(['alias', 'taxId', 'idCif', 'businessName', 'email', 'zip', 'taxRegimeCode']);

    const bad = await create(body({ email: 'not-an-email', zip: '4250', idCif: '12' }));
    expect(bad.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.include.members([
      'email:invalid_format',
      'zip:invalid_format',
      'idCif:invalid_format',
    ]);

    const found = async (b: unknown) => (await create(b)).body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`);
    expect(await found(body({ taxId: 'EKU90031' }))).to.deep.equal(['taxId:invalid_length']);
    expect(await found(body({ taxId: 'EKU9013173C9' }))).to.deep.equal(['taxId:rfc_invalid']);
    expect(await found(body({ taxId: 'XAXX010101000' }))).to.deep.equal(['taxId:rfc_generic_not_allowed']);
    // 612 is for personas físicas; EKU9003173C9 is a persona moral. 999 does not exist.
    expect(await found(body({ taxRegimeCode: '612' }))).to.deep.equal(['taxRegimeCode:tax_regime_not_allowed']);
    expect(await found(body({ ...XOCHILT, taxRegimeCode: '601' }))).to.deep.equal(['taxRegimeCode:tax_regime_not_allowed']);
    expect(await found(body({ taxRegimeCode: '999' }))).to.deep.equal(['taxRegimeCode:catalog_key_unknown']);
    const after = await harness().deps.db('issuers').where({ account_id: account.accountId }).count<{ count: string }[]>('* as count');
    expect(after).to.deep.equal(before);
  });

  it('does not refuse an RFC whose last character is not its computed check digit: SAT issued such RFCs, and synchronization asks SAT', async () => {
    const third = await harness().bootstrap();
    const res = await create({ ...body({ taxId: 'MCI7306249Y1', businessName: 'MUNICIPIO DE CUAUTITLAN IZCALLI', taxRegimeCode: '603' }), groupId: third.groupId }, third);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.taxId).to.equal('MCI7306249Y1');
  });

  it('lists with the page envelope, filtered by group, name or RFC', async () => {
    const page = await call('GET', `/v1/qrs/issuers?groupId=${groupId}`, { headers: as(account) });
    expect(page.status).to.equal(200);
    expect(page.body).to.include({ totalElements: 2, totalPages: 1, number: 0, size: 20 });
    expect(page.body.content.map((i: { taxId: string }) => i.taxId)).to.deep.equal(['EKU9003173C9', 'CACX7605101P8']);

    const all = await call('GET', '/v1/qrs/issuers?size=1&page=1', { headers: as(account) });
    expect(all.body).to.include({ totalElements: 3, totalPages: 3, number: 1, size: 1 });
    expect(all.body.content).to.have.length(1);

    const byName = await call('GET', `/v1/qrs/issuers?groupId=${groupId}&filter=casas`, { headers: as(account) });
    expect(byName.body.content.map((i: { taxId: string }) => i.taxId)).to.deep.equal(['CACX7605101P8']);
    const byRfc = await call('GET', `/v1/qrs/issuers?groupId=${groupId}&filter=EKU9`, { headers: as(account) });
    expect(byRfc.body.content.map((i: { taxId: string }) => i.taxId)).to.deep.equal(['EKU9003173C9']);
    const wildcard = await call('GET', `/v1/qrs/issuers?groupId=${groupId}&filter=%25`, { headers: as(account) });
    expect(wildcard.body.totalElements).to.equal(0);

    expectError(await call('GET', '/v1/qrs/issuers?size=0', { headers: as(account) }), 400, 'validation_failed');
    expectError(await call('GET', '/v1/qrs/issuers?page=-1', { headers: as(account) }), 400, 'validation_failed');
    expectError(await call('GET', '/v1/qrs/issuers?size=101', { headers: as(account) }), 400, 'validation_failed');
  });

  it("keeps accounts apart: another account's issuer or group is 404, never data", async () => {
    const mine = (await call('GET', `/v1/qrs/issuers?groupId=${groupId}`, { headers: as(account) })).body.content[0].invoiceDataId;
    expectError(await call('GET', `/v1/qrs/issuers/${mine}`, { headers: as(otherAccount) }), 404, 'issuer_not_found');
    expectError(await call('GET', `/v1/qrs/issuers?groupId=${groupId}`, { headers: as(otherAccount) }), 404, 'group_not_found');
    expectError(await create(body({ ...XOCHILT }), otherAccount), 404, 'group_not_found');
    const theirs = await call('GET', '/v1/qrs/issuers', { headers: as(otherAccount) });
    expect(theirs.body.content.map((i: { invoiceDataId: string }) => i.invoiceDataId)).to.deep.equal([otherAccount.issuerId]);
  });

  it('does not let /v1/qrs/{qrId} capture the issuer routes, nor issuers capture QR ids', async () => {
    expect((await call('GET', '/v1/qrs/issuers', { headers: as(account) })).status).to.equal(200);
    expectError(await call('GET', '/v1/qrs/tra_unknown', { headers: { 'X-API-Key': account.apiKey } }), 404, 'transaction_not_found');
  });
});

describe('PUT /v1/qrs/issuers/{issuerId} (multipart)', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  async function put(parts: Record<string, string | Buffer>, who = account, issuerId = account.issuerId) {
    const form = Object.fromEntries(Object.entries(parts).map(([name, v]) => [name, typeof v === 'string' ? v : { data: v, fileName: 'logo.png' }]));
    return callForm('PUT', `/v1/qrs/issuers/${issuerId}`, who.accessToken, form);
  }
  const base = () => ({ groupId: account.groupId, alias: 'Renombrada', email: 'nuevo@example.mx', taxRegimeCode: '601' });

  it('updates alias, e-mail, regime, status and logo: 200 with the Issuer', async () => {
    const logo = await sharp({ create: { width: 800, height: 800, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const res = await put({ ...base(), status: 'INACTIVE', logo });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ alias: 'Renombrada', email: 'nuevo@example.mx', status: 'INACTIVE', taxId: 'EKU9003173C9' });
    expect(res.body.invoiceLogoUrl).to.match(/\/v1\/public\/files\/logos\//);
    expect((await call('GET', new URL(res.body.invoiceLogoUrl).pathname)).status).to.equal(200);
  });

  it('validates the form (400), the group (404) and the account (404)', async () => {
    const missing = await put({ alias: 'x' });
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.include.members(['groupId', 'email', 'taxRegimeCode']);
    const badRegime = await put({ ...base(), taxRegimeCode: '612' });
    expect(badRegime.body.error.details[0]).to.include({ field: 'taxRegimeCode', code: 'tax_regime_not_allowed' });
    expect((await put({ ...base(), logo: Buffer.from('not an image') })).body.error.details[0]).to.include({ field: 'logo', code: 'invalid_image' });
    const other = await harness().bootstrap();
    expectError(await put({ ...base(), groupId: other.groupId }), 404, 'group_not_found');
    expectError(await put(base(), other), 404, 'issuer_not_found');
  });
});
