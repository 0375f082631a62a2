import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePacServer, type FakePacServer } from '../../../../fakes/pac-server.js';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { cadenaOriginal } from '../../../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { sealCfdi } from '../../../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../../../shared/domain/cfdi/serialize-xml.js';
import { attribute, descendants, setAttribute, type XmlElement } from '../../../../shared/domain/cfdi/xml-element.js';
import { PacRefused, type PacClient } from '../../../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../../../shared/adapters/pac/sw-pac-client.js';
import { localDateTime } from '../../../../shared/domain/time-zone.js';
import { testSigner } from '../../../fixtures/cfdi/test-signer.js';
import { rejection } from '../../../helpers/rejection.js';
import { xsdInvalid } from '../../../helpers/sat-tools.js';
import { generatePaymentInput } from './generate-payment-input.js';

/** The fake PAC's xmllint run takes 1-5 s on a loaded machine. */
const TIMEOUT_MS = 5000;

function paymentCfdi(seed: number): XmlElement {
  return buildCfdi({ ...generatePaymentInput(seed), issuedLocal: localDateTime(new Date(), 'America/Mexico_City') }).comprobante;
}

describe('a type P CFDI through the fake PAC (SW format over HTTP)', function () {
  this.timeout(4 * TIMEOUT_MS);
  let pac: FakePacServer;
  let client: PacClient;
  before(async () => {
    pac = await startFakePacServer();
    client = swPacClient(pac.url, pac.token, TIMEOUT_MS, `${pac.url}/ConsultaCFDIService.svc`);
  });
  after(() => pac.close());

  it('is stamped: the TFD follows pago20:Pagos, the result validates and keeps the sealed cadena', async () => {
    const comprobante = paymentCfdi(1);
    const { cadena } = sealCfdi(comprobante, testSigner());
    const stamp = await client.stamp(serializeXml(comprobante), {});
    expect(stamp.previouslyStamped).to.equal(false);
    const stamped = parseXml(stamp.xml);
    expect(descendants(stamped, ['cfdi:Complemento']).flatMap((c) => c.children.map((n) => n.name))).to.deep.equal(['pago20:Pagos', 'tfd:TimbreFiscalDigital']);
    // SW writes the TFD's UUID in lower case; the client hands it over upper-cased.
    expect(attribute(descendants(stamped, ['cfdi:Complemento', 'tfd:TimbreFiscalDigital'])[0]!, 'UUID')).to.equal(stamp.uuid.toLowerCase());
    expect(cadenaOriginal(stamped)).to.equal(cadena);
    const dir = mkdtempSync(join(tmpdir(), 'pagos20-pac-'));
    writeFileSync(join(dir, 'stamped.xml'), stamp.xml);
    expect(await xsdInvalid([join(dir, 'stamped.xml')])).to.equal('');
  });

  it("is refused with SAT's CRP code when a balance does not add up", async () => {
    const comprobante = paymentCfdi(0);
    setAttribute(descendants(comprobante, ['cfdi:Complemento', 'pago20:Pagos', 'pago20:Pago', 'pago20:DoctoRelacionado'])[0]!, 'ImpSaldoInsoluto', '0.01');
    sealCfdi(comprobante, testSigner());
    const refusal = await rejection(client.stamp(serializeXml(comprobante), {}), PacRefused);
    expect(refusal.pacCode).to.equal('CRP20244');
  });
});
