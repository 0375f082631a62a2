import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePacServer, type FakePacServer } from '../../../fakes/pac-server.js';
import { cadenaOriginal } from '../../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../../shared/domain/cfdi/parse-xml.js';
import type { Customer } from '../../../shared/invoices/customer.js';
import { sealSale } from '../../../shared/invoices/seal-sale.js';
import { swPacClient } from '../../../shared/adapters/pac/sw-pac-client.js';
import { buildQrTransactionRecord } from '../../../shared/qr/build-qr-transaction.js';
import { checkQrRules } from '../../../shared/qr/check-qr-rules.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { localDateTime } from '../../../shared/domain/time-zone.js';
import { awkwardSale } from '../../fixtures/awkward-sales.js';
import { testSigner } from '../../fixtures/cfdi/test-signer.js';
import { inParallel, opensslVerdicts, satCadena, xsdInvalid } from '../../helpers/sat-tools.js';

const CORPUS = 60;
const BUYER: Customer = { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', tax_regime: '601', postal_code: '86991', cfdi_use: 'G03', email: 'compras@example.com' };

describe("awkward sales with the contract's six decimals: accepted at the door, and every referee accepts their CFDI", function () {
  this.timeout(180_000);
  const catalogs = satCatalogs();
  const dir = mkdtempSync(join(tmpdir(), 'awkward-sales-'));
  const now = new Date();
  const sales = Array.from({ length: CORPUS }, (_, seed) => awkwardSale(seed, 'store-1', new Date(now.getTime() + 86_400_000)));
  const documents: { file: string; xml: string; cadena: string }[] = [];
  let pac: FakePacServer;

  before(async () => {
    pac = await startFakePacServer();
  });
  after(() => pac.close());

  it("POST /v1/qrs's rules refuse none of them", () => {
    const refused = sales.map((s, seed) => ({ seed, details: checkQrRules(s, { catalogs, onDate: now.toISOString().slice(0, 10) }) })).filter((r) => r.details.length > 0);
    expect(refused).to.deep.equal([]);
  });

  it('covers what the issue asks for', () => {
    const text = JSON.stringify(sales);
    for (const needle of [
      '"quantity":1.333',
      '"quantity":0.012345',
      '"factor":"Cuota"',
      '"factor":"Exento"',
      '"rate":"0.000000"',
      '"discount":',
      '"currency":"USD"',
      '"type":"Retencion"',
    ]) {
      expect(text, needle).to.contain(needle);
    }
    expect(sales.some((s) => s.operation_data.length === 30)).to.equal(true);
    expect(sales.filter((s) => String(s.amount).split('.')[1]?.length === 6).length, 'totals at six decimals').to.be.above(CORPUS / 3);
  });

  it('each becomes a sealed CFDI that passes our Anexo 20 self-check', () => {
    sales.forEach((request, seed) => {
      const record = buildQrTransactionRecord({
        request,
        qrId: `tra_awkward${seed}`,
        token: 't',
        shortCode: 'ABCDEFGH',
        png: Buffer.alloc(0),
        idempotencyKey: `k${seed}`,
        timeZone: 'America/Mexico_City',
        issuedLocal: localDateTime(now, 'America/Mexico_City'),
        now,
        principal: {
          keyId: 'k',
          mode: 'development',
          merchantId: 'mer_1',
          accountId: 'acc_1',
          externalMerchantId: 'm',
          merchantName: 'M',
          merchantStatus: 'ACTIVE',
          issuerRfc: 'EKU9003173C9',
          issuerName: 'ESCUELA KEMPER URGATE',
          globalPeriodicity: '04',
          csdValidTo: null,
        },
      });
      const sealed = sealSale(
        { ...record, storeName: 's', issuerRfc: 'EKU9003173C9', issuerName: 'ESCUELA KEMPER URGATE' },
        BUYER,
        {
          issuer: { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', taxRegime: '601' },
          expeditionPlace: '42501',
          series: 'AWK',
          folio: String(seed + 1),
          issuedLocal: localDateTime(now, 'America/Mexico_City'),
          resicoWithholding: true,
        },
        testSigner(),
        catalogs,
      );
      if (!sealed.ok) expect.fail(`seed ${seed}: ${JSON.stringify(sealed.findings)}`);
      const file = `awkward-${seed}.xml`;
      writeFileSync(join(dir, file), sealed.xml);
      documents.push({ file, xml: sealed.xml, cadena: cadenaOriginal(parseXml(sealed.xml)) });
    });
    expect(documents).to.have.length(CORPUS);
  });

  it("SAT's XSLT computes the same cadena, SAT's XSD validates them and openssl verifies the seals", async () => {
    const sat = await inParallel(documents, 4, (d) => satCadena(join(dir, d.file)));
    expect(documents.filter((d, i) => sat[i] !== d.cadena).map((d) => d.file)).to.deep.equal([]);
    expect(await xsdInvalid(documents.map((d) => join(dir, d.file)))).to.equal('');
    expect(await opensslVerdicts(dir, testSigner().certificateBase64, documents.slice(0, 8))).to.deep.equal(documents.slice(0, 8).map(() => 'Verified OK'));
  });

  it("the fake PAC (SAT's XSD and Anexo 20 arithmetic) stamps every one", async () => {
    const client = swPacClient(pac.url, pac.token, 30_000, `${pac.url}/ConsultaCFDIService.svc`);
    const refusals = (
      await inParallel(documents, 4, (d) =>
        client.stamp(d.xml, {}).then(
          () => '',
          (err: Error) => `${d.file}: ${err.message}`,
        ),
      )
    ).filter((r) => r !== '');
    expect(refusals).to.deep.equal([]);
  });
});
