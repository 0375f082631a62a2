import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePacServer } from '../../fakes/pac-server.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute } from '../../shared/domain/cfdi/xml-element.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { ISSUER, sealedInvoice } from '../fixtures/cfdi/sealed-invoice.js';

const CSD_DIR = new URL('../../data/sat/test-csd/', import.meta.url);

describe('the built-in fake PAC remembers its stamps across restarts (FAKE_DATA_DIR)', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fake-pac-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an invoice stamped before a restart is cancelled after it, its stamp and SAT status kept', async () => {
    const journalFile = join(dir, 'pac-stamps.jsonl');
    const xml = sealedInvoice('250');
    const first = await startFakePacServer({ journalFile });
    const before = swPacClient(first.url, first.token, 10_000, `${first.url}/ConsultaCFDIService.svc`);
    const stamp = await before.stamp(xml, {});
    await first.close();

    const second = await startFakePacServer({ journalFile });
    try {
      const after = swPacClient(second.url, second.token, 10_000, `${second.url}/ConsultaCFDIService.svc`);
      // The same document sent again gets its earlier stamp back, as from a real PAC.
      expect((await after.stamp(xml, {})).uuid).to.equal(stamp.uuid);
      const comprobante = parseXml(stamp.xml);
      const query = { uuid: stamp.uuid, issuerRfc: ISSUER.rfc, receptorRfc: 'URE180429TM6', total: attribute(comprobante, 'Total')!, seal: attribute(comprobante, 'Sello')! };
      expect((await after.status(query)).state).to.equal('Vigente');
      const cancelled = await after.cancel({
        uuid: stamp.uuid,
        issuerRfc: ISSUER.rfc,
        motive: '02',
        password: '12345678a',
        certificateDer: readFileSync(new URL('EKU9003173C9.cer', CSD_DIR)),
        privateKeyDer: readFileSync(new URL('EKU9003173C9.key', CSD_DIR)),
      });
      expect(cancelled.satCode).to.equal('201');
    } finally {
      await second.close();
    }
    // And the cancellation too survives the next restart.
    const third = await startFakePacServer({ journalFile });
    try {
      const client = swPacClient(third.url, third.token, 10_000, `${third.url}/ConsultaCFDIService.svc`);
      const comprobante = parseXml(stamp.xml);
      expect(
        (
          await client.status({
            uuid: stamp.uuid,
            issuerRfc: ISSUER.rfc,
            receptorRfc: 'URE180429TM6',
            total: attribute(comprobante, 'Total')!,
            seal: attribute(comprobante, 'Sello')!,
          })
        ).state,
      ).to.equal('Cancelado');
    } finally {
      await third.close();
    }
  });

  it('without a journal (tests) it keeps nothing: a new fake does not know the UUID', async () => {
    const first = await startFakePacServer();
    const stamp = await swPacClient(first.url, first.token, 10_000, `${first.url}/ConsultaCFDIService.svc`).stamp(sealedInvoice('260'), {});
    await first.close();
    const second = await startFakePacServer();
    try {
      const status = await swPacClient(second.url, second.token, 10_000, `${second.url}/ConsultaCFDIService.svc`).status({
        uuid: stamp.uuid,
        issuerRfc: ISSUER.rfc,
        receptorRfc: 'URE180429TM6',
        total: attribute(parseXml(stamp.xml), 'Total')!,
        seal: attribute(parseXml(stamp.xml), 'Sello')!,
      });
      expect(status.state).to.equal('No Encontrado');
    } finally {
      await second.close();
    }
  });
});
