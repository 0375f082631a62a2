import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { cadenaOriginal } from '../../../../shared/domain/cfdi/cadena-original.js';
import { checkCfdiAmounts } from '../../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { sealCfdi, verifyCfdiSeal } from '../../../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../../../shared/domain/cfdi/serialize-xml.js';
import { generateCfdiInput } from '../../../fixtures/cfdi/generate-cfdi-input.js';
import { testSigner } from '../../../fixtures/cfdi/test-signer.js';
import { inParallel, opensslVerdicts, satCadena, xsdInvalid } from '../../../helpers/sat-tools.js';

const CORPUS = 220;

describe("cadena original and seal over a generated corpus, refereed by SAT's XSLT, XSD and openssl", function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-corpus-'));
  const files: string[] = [];
  const ours = new Map<string, string>();

  before(() => {
    const signer = testSigner();
    for (let seed = 0; seed < CORPUS; seed++) {
      const { comprobante } = buildCfdi(generateCfdiInput(seed));
      const { cadena } = sealCfdi(comprobante, signer);
      const file = `cfdi-${seed}.xml`;
      writeFileSync(join(dir, file), serializeXml(comprobante));
      files.push(file);
      ours.set(file, cadena);
    }
  });

  it('covers what the issue asks for', () => {
    const all = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    for (const needle of [
      'TasaOCuota="0.160000"',
      'TasaOCuota="0.080000"',
      'TasaOCuota="0.000000"',
      'TipoFactor="Exento"',
      'Impuesto="003" TipoFactor="Tasa"',
      'TipoFactor="Cuota"',
      '<cfdi:Retencion Base',
      'Impuesto="001"',
      'Descuento=',
      'Moneda="USD" TipoCambio="17.4521"',
      '<cfdi:InformacionGlobal',
      '<cfdi:CfdiRelacionados',
    ]) {
      expect(all, needle).to.contain(needle);
    }
  });

  it('our cadena equals xsltproc running cadenaoriginal_4_0.xslt, byte for byte, for every document', async () => {
    const sat = await inParallel(files, 4, (f) => satCadena(join(dir, f)));
    const differing = files.filter((f, i) => sat[i] !== ours.get(f));
    expect(differing).to.deep.equal([]);
  });

  it('the cadena read back from the serialized XML is the one that was sealed', () => {
    for (const f of files) expect(cadenaOriginal(parseXml(readFileSync(join(dir, f), 'utf8')))).to.equal(ours.get(f));
  });

  it("every document validates against SAT's XSD bundle", async () => {
    expect(await xsdInvalid(files.map((f) => join(dir, f)))).to.equal('');
  });

  it("every seal verifies, and passes Anexo 20's arithmetic self-check", () => {
    for (const f of files) {
      const parsed = parseXml(readFileSync(join(dir, f), 'utf8'));
      expect(verifyCfdiSeal(parsed), f).to.equal(true);
      expect(checkCfdiAmounts(parsed), f).to.deep.equal([]);
    }
  });

  it("openssl verifies the seal against the cadena with the certificate's public key", async () => {
    const documents = files.slice(0, 5).map((f) => ({ xml: readFileSync(join(dir, f), 'utf8'), cadena: ours.get(f)! }));
    expect(await opensslVerdicts(dir, testSigner().certificateBase64, documents)).to.deep.equal(documents.map(() => 'Verified OK'));
  });
});
