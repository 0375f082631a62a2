import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { callForm, expectError } from '../helpers/http.js';

const file = (path: string) => readFileSync(new URL(path, import.meta.url));
const EKU = { cer: file('../../data/sat/test-csd/EKU9003173C9.cer'), key: file('../../data/sat/test-csd/EKU9003173C9.key') };
const AAA = { cer: file('../fixtures/sat-test-csd/CSD01_AAA010101AAA/CSD01_AAA010101AAA.cer'), key: file('../fixtures/sat-test-csd/CSD01_AAA010101AAA/CSD01_AAA010101AAA.key') };
const FIEL = { cer: file('../fixtures/sat-test-csd/FIEL_CACX7605101P8/cacx7605101p8.cer'), key: file('../fixtures/sat-test-csd/FIEL_CACX7605101P8/cacx7605101p8.key') };

describe('merchant invoice mode (CSD upload)', () => {
  let account: BootstrapResult;
  let merchantId: string;
  before(async () => {
    account = await harness().bootstrap();
    const res = await fetch(`${harness().baseUrl}/v1/qrs/merchants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ issuerId: account.issuerId, merchantName: 'Sucursal sin CSD' }),
    });
    merchantId = ((await res.json()) as { merchantId: string }).merchantId;
  });

  async function upload(method: 'POST' | 'PUT', parts: { cer?: Buffer; key?: Buffer; password?: string; prefix?: string }, id = merchantId, who = account) {
    return callForm(method, `/v1/qrs/merchants/${id}/invoice-mode`, who.accessToken, {
      'csdDataRequest.cerFile': parts.cer && { data: parts.cer, fileName: 'mi-certificado.cer' },
      'csdDataRequest.keyFile': parts.key && { data: parts.key, fileName: 'mi-llave.key' },
      'csdDataRequest.password': parts.password,
      'csdDataRequest.serialNumberPrefix': parts.prefix,
    });
  }
  const stored = () => harness().deps.db('merchant_csds').where({ merchant_id: merchantId }).first();

  it('refuses each unusable CSD with a field-level reason and stores nothing', async () => {
    const cases: [Parameters<typeof upload>[1], string, string][] = [
      [{ ...EKU, password: 'wrong' }, 'csdDataRequest.password', 'csd_wrong_password'],
      [{ cer: EKU.cer, key: AAA.key, password: '12345678a' }, 'csdDataRequest.keyFile', 'csd_key_mismatch'],
      [{ ...AAA, password: '12345678a' }, 'csdDataRequest.cerFile', 'csd_expired'],
      [{ ...FIEL, password: '12345678a' }, 'csdDataRequest.cerFile', 'csd_not_a_csd'],
      [{ cer: Buffer.from('not a certificate'), key: EKU.key, password: '12345678a' }, 'csdDataRequest.cerFile', 'csd_unreadable'],
      [{ cer: EKU.key, key: EKU.cer, password: '12345678a' }, 'csdDataRequest.cerFile', 'csd_files_swapped'],
    ];
    for (const [parts, field, code] of cases) {
      const res = await upload('POST', parts);
      expectError(res, 400, 'invalid_csd');
      expect(res.body.error.details, code).to.deep.include({ field, code, message: res.body.error.details.find((d: { code: string }) => d.code === code)?.message });
      // A person reads the message: no library's words (ASN.1, X509v3) in it.
      expect(res.body.error.details.map((d: { message: string }) => d.message).join(' ')).to.not.match(/ASN|X509|Cannot parse/);
    }
    // AAA010101AAA is also another taxpayer than the issuer (EKU9003173C9).
    expect((await upload('POST', { ...AAA, password: '12345678a' })).body.error.details.map((d: { code: string }) => d.code)).to.include('csd_rfc_mismatch');
    const missing = await upload('POST', { cer: EKU.cer });
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['csdDataRequest.keyFile', 'csdDataRequest.password']);
    expect(await stored()).to.equal(undefined);
  });

  it('stores a valid CSD (201), key and password encrypted, and describes it without secrets', async () => {
    const res = await upload('POST', { ...EKU, password: '12345678a', prefix: 'SUC' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.deep.include({ merchantId, invoiceType: 'SERVICE', apiDataRequest: null });
    expect(res.body.csdDataRequest).to.deep.include({ cerFileName: 'mi-certificado.cer', keyFileName: 'mi-llave.key', serialNumberPrefix: 'SUC' });
    expect(res.body.certificate).to.include({ number: '30001000000500003416', rfc: 'EKU9003173C9' });
    expect(JSON.stringify(res.body)).to.not.include('12345678a');
    const row = await stored();
    expect(row.private_key_encrypted.equals(EKU.key)).to.equal(false);
    expect(row.private_key_encrypted.includes(EKU.key.subarray(0, 64))).to.equal(false);
    expect(row.password_encrypted.toString('latin1')).to.not.include('12345678a');
    const got = await fetch(`${harness().baseUrl}/v1/qrs/merchants/${merchantId}/invoice-mode`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(got.status).to.equal(200);
    expect(await got.json()).to.deep.equal(res.body);
  });

  it('renews with PUT (200), replacing the stored files atomically', async () => {
    const res = await upload('PUT', { ...EKU, password: '12345678a', prefix: 'NUEVA' });
    expect(res.status).to.equal(200);
    expect(res.body.csdDataRequest.serialNumberPrefix).to.equal('NUEVA');
    expect(await harness().deps.db('merchant_csds').where({ merchant_id: merchantId })).to.have.length(1);
  });

  it('refuses oversized files (413), other content types (415), and other accounts (404)', async () => {
    expectError(await upload('POST', { cer: Buffer.alloc(70 * 1024, 1), key: EKU.key, password: 'x' }), 413, 'payload_too_large');
    const json = await fetch(`${harness().baseUrl}/v1/qrs/merchants/${merchantId}/invoice-mode`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).to.equal(415);
    const other = await harness().bootstrap();
    expectError(await upload('PUT', { ...EKU, password: '12345678a' }, merchantId, other), 404, 'merchant_not_found');
  });
});
