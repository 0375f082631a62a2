import { expect } from 'chai';
import { X509Certificate, createVerify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePacServer, type FakePacServer } from '../../../../fakes/pac-server.js';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { tfdCadenaOriginal } from '../../../../shared/domain/cfdi/cadena-original.js';
import type { CfdiInput } from '../../../../shared/domain/cfdi/cfdi-input.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { sealCfdi } from '../../../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../../../shared/domain/cfdi/serialize-xml.js';
import { attribute, descendants } from '../../../../shared/domain/cfdi/xml-element.js';
import { PacCredentialsRejected, PacRefused, PacStampWithheld, PacUnavailable, type PacClient } from '../../../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../../../shared/adapters/pac/sw-pac-client.js';
import { localDateTime } from '../../../../shared/domain/time-zone.js';
import { generateCfdiInput } from '../../../fixtures/cfdi/generate-cfdi-input.js';
import { testSigner } from '../../../fixtures/cfdi/test-signer.js';
import { xsdInvalid } from '../../../helpers/sat-tools.js';
import { rejection } from '../../../helpers/rejection.js';

function sealed(overrides: Partial<CfdiInput> = {}, seed = 2): string {
  const input: CfdiInput = { ...generateCfdiInput(seed), issuedLocal: localDateTime(new Date(), 'America/Mexico_City'), ...overrides };
  const { comprobante } = buildCfdi(input);
  sealCfdi(comprobante, testSigner());
  return serializeXml(comprobante);
}

const refusal = (promise: Promise<unknown>) => rejection(promise, PacRefused);
const unavailable = (promise: Promise<unknown>) => rejection(promise, PacUnavailable);

/** The fake PAC's xmllint run takes 1-5 s on a loaded machine, and timers here fire up to ~1.5 s late. */
const TIMEOUT_MS = 5000;
/** For the calls the fake never answers: shorter than TIMEOUT_MS so those tests stay fast. */
const HANG_TIMEOUT_MS = 2000;

describe('SW-format PAC client against the fake PAC over HTTP', function () {
  // Some tests make three stamping calls, each allowed TIMEOUT_MS.
  this.timeout(4 * TIMEOUT_MS);
  let pac: FakePacServer;
  let client: PacClient;
  let hanging: PacClient;
  before(async () => {
    pac = await startFakePacServer();
    client = swPacClient(pac.url, pac.token, TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`);
    hanging = swPacClient(pac.url, pac.token, HANG_TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`);
  });
  after(() => pac.close());

  it("stamps a sealed CFDI: TFD 1.1 with a UUID, valid against SAT's XSD, SelloSAT verifiable with the PAC's certificate", async () => {
    const stamp = await client.stamp(sealed(), {});
    expect(stamp.uuid).to.match(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(stamp.previouslyStamped).to.equal(false);
    const dir = mkdtempSync(join(tmpdir(), 'pac-'));
    writeFileSync(join(dir, 'stamped.xml'), stamp.xml);
    expect(await xsdInvalid([join(dir, 'stamped.xml')])).to.equal('');
    const tfd = descendants(parseXml(stamp.xml), ['cfdi:Complemento', 'tfd:TimbreFiscalDigital'])[0]!;
    // SW writes UUIDs in lower case; the client hands them over upper-cased, as SAT writes them and the service stores them.
    expect(attribute(tfd, 'UUID')).to.equal(stamp.uuid.toLowerCase());
    const verified = createVerify('RSA-SHA256')
      .update(tfdCadenaOriginal(tfd), 'utf8')
      .verify(new X509Certificate(pac.certificate).publicKey, attribute(tfd, 'SelloSAT')!, 'base64');
    expect(verified).to.equal(true);
  });

  it('the same sealed document sent again returns the earlier stamp, not a second one', async () => {
    const xml = sealed({}, 3);
    const first = await client.stamp(xml, {});
    const again = await client.stamp(xml, {});
    expect(again.uuid).to.equal(first.uuid);
    expect(again.previouslyStamped).to.equal(true);
  });

  it('a stamp whose answer was lost is found by re-sending the document', async () => {
    const xml = sealed({}, 4);
    pac.script({ kind: 'stamp-and-hang' });
    expect((await unavailable(hanging.stamp(xml, {}))).message).to.contain(`within ${HANG_TIMEOUT_MS} ms`);
    const retry = await client.stamp(xml, {});
    expect(retry.previouslyStamped).to.equal(true);
    expect(pac.calls.filter((c) => c.uuid === retry.uuid).map((c) => c.outcome)).to.deep.equal(['stamped, no answer', 'previously stamped']);
  });

  it("answers a repeated document as SW does: HTTP 400, SW's 307, the earlier stamp in data with its UUID in lower case", async () => {
    const xml = sealed({}, 10);
    const first = await client.stamp(xml, {});
    const form = new FormData();
    form.append('xml', new Blob([xml], { type: 'application/xml' }), 'cfdi.xml');
    const res = await fetch(`${pac.url}/v4/cfdi33/stamp/v4`, { method: 'POST', body: form, headers: { authorization: `Bearer ${pac.token}` } });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { status: string; message: string; data: { uuid: string; cfdi: string } };
    expect(body).to.include({ status: 'error', message: '307. El comprobante contiene un timbre previo.' });
    expect(body.data.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Read on that status, the stamp comes back upper-cased, with the XML as SW wrote it.
    expect(first.uuid).to.equal(body.data.uuid.toUpperCase());
    expect(body.data.cfdi).to.equal(first.xml);
  });

  it("another document under the same customid gets the earlier stamp (SW's CFDI3307), not a second CFDI", async () => {
    const hourAgo = localDateTime(new Date(Date.now() - 3600_000), 'America/Mexico_City');
    const first = await client.stamp(sealed({ issuedLocal: hourAgo }, 11), { customId: 'cfd_same-invoice' });
    // The same sale sealed again with a later Fecha: another seal, another document for SW.
    const resealed = sealed({}, 11);
    const again = await client.stamp(resealed, { customId: 'cfd_same-invoice' });
    expect(again).to.include({ uuid: first.uuid, previouslyStamped: true, xml: first.xml });
    expect(pac.calls.filter((c) => c.uuid === first.uuid).map((c) => c.outcome)).to.deep.equal(['stamped', 'customid stamped before']);
    // Under another customid the same document is a CFDI of its own: the customid is what prevents it.
    const other = await client.stamp(resealed, { customId: 'cfd_another-invoice' });
    expect(other.uuid).to.not.equal(first.uuid);
    expect(other.previouslyStamped).to.equal(false);
  });

  it("SW's CO1000 (its own uncontrolled error) is temporary, not a refusal; the next call stamps", async () => {
    const xml = sealed({}, 12);
    pac.script({ kind: 'co1000' });
    expect((await unavailable(client.stamp(xml, {}))).message).to.contain('CO1000');
    expect((await client.stamp(xml, {})).previouslyStamped).to.equal(false);
  });

  it('a 307 without the stamp in data is PacStampWithheld (retried), and the stamp comes with a later answer', async () => {
    const xml = sealed({}, 13);
    pac.script({ kind: 'withheld' });
    const withheld = await rejection(client.stamp(xml, {}), PacStampWithheld);
    expect(withheld).to.be.instanceOf(PacUnavailable);
    expect(withheld.message).to.contain('307');
    const stamp = await client.stamp(xml, {});
    expect(stamp.previouslyStamped).to.equal(true);
    expect(pac.calls.filter((c) => c.uuid === stamp.uuid).map((c) => c.outcome)).to.deep.equal(['stamped, withheld', 'previously stamped']);
  });

  it("refuses a receptor whose name or zip is not what SAT has for that RFC, with the PAC's code", async () => {
    const name = await refusal(
      client.stamp(sealed({ receptor: { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA', taxRegime: '601', postalCode: '86991', cfdiUse: 'G03' } }, 5), {}),
    );
    expect(name.pacCode).to.equal('CFDI40145');
    const zip = await refusal(
      client.stamp(sealed({ receptor: { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', taxRegime: '601', postalCode: '86000', cfdiUse: 'G03' } }, 5), {}),
    );
    expect(zip.pacCode).to.equal('CFDI40147');
  });

  it('refuses a broken seal, a Fecha older than 72 hours, and a document that fails the XSD', async () => {
    const tampered = sealed({}, 6).replace(/Total="([0-9.]+)"/, 'Total="1.00"');
    expect((await refusal(client.stamp(tampered, {}))).pacCode).to.equal('CFDI40102');
    const old = sealed({ issuedLocal: localDateTime(new Date(Date.now() - 73 * 3600_000), 'America/Mexico_City') }, 6);
    expect((await refusal(client.stamp(old, {}))).pacCode).to.equal('401');
    const badUse = sealed({}, 7).replace(/UsoCFDI="[A-Z0-9]+"/, 'UsoCFDI="ZZZ"');
    const schemaRefusal = await refusal(client.stamp(badUse, {}));
    expect(schemaRefusal.pacCode).to.equal('CFDI40101');
    expect(schemaRefusal.message).to.contain('UsoCFDI').and.not.contain('/tmp/');
  });

  it('a 5xx, an unreadable answer and a PAC that never answers are temporary (PacUnavailable)', async () => {
    pac.script({ kind: 'status', status: 503 }, { kind: 'garbage' }, { kind: 'hang' });
    expect((await unavailable(client.stamp(sealed({}, 8), {}))).message).to.contain('503');
    expect((await unavailable(client.stamp(sealed({}, 8), {}))).message).to.contain('unreadable');
    expect((await unavailable(hanging.stamp(sealed({}, 8), {}))).message).to.contain(`within ${HANG_TIMEOUT_MS} ms`);
  });

  it('a closed port is PacUnavailable, a wrong token PacCredentialsRejected: neither is a refusal of the document', async () => {
    const rejected = await rejection(swPacClient(pac.url, 'wrong', TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`).stamp(sealed({}, 9), {}), PacCredentialsRejected);
    expect(rejected.message).to.contain('401').and.contain('El token debe contener 3 partes');
    expect((await unavailable(swPacClient('http://127.0.0.1:9', pac.token, TIMEOUT_MS, 'http://127.0.0.1:9/ConsultaCFDIService.svc').stamp(sealed({}, 9), {}))).message).to.contain(
      'unreachable',
    );
  });
});
