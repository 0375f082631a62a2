import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildCfdi } from '../../../../shared/domain/cfdi/build-cfdi.js';
import { cadenaOriginal } from '../../../../shared/domain/cfdi/cadena-original.js';
import type { CfdiPaymentInput, PaidInvoiceTax } from '../../../../shared/domain/cfdi/cfdi-input.js';
import { checkCfdiAmounts } from '../../../../shared/domain/cfdi/check-cfdi-amounts.js';
import { parseXml } from '../../../../shared/domain/cfdi/parse-xml.js';
import { sealCfdi, verifyCfdiSeal } from '../../../../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../../../../shared/domain/cfdi/serialize-xml.js';
import { attribute } from '../../../../shared/domain/cfdi/xml-element.js';
import { Money } from '../../../../shared/domain/money.js';
import { testSigner } from '../../../fixtures/cfdi/test-signer.js';
import { CADENA_XSLT, SAT_DIR, opensslVerdicts, xsdInvalid } from '../../../helpers/sat-tools.js';
import { generatePaymentInput } from './generate-payment-input.js';

const run = promisify(execFile);
const CORPUS = 40;
const SAT_SAMPLE = `${SAT_DIR}samples/cfdi40-pago20-EKU9003173C9-sellado-sin-timbre.xml`;

/**
 * SAT's cadenas of many files from one xsltproc run: a stylesheet importing cadenaoriginal_4_0.xslt walks
 * a list of documents and hands each root to SAT's own "/" template (xsl:apply-imports), one per line.
 */
async function satCadenas(dir: string, paths: readonly string[]): Promise<string[]> {
  const stylesheet = join(dir, 'batch-cadena.xslt');
  writeFileSync(
    stylesheet,
    `<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:import href="${pathToFileURL(CADENA_XSLT).href}"/>
  <xsl:template match="/">
    <xsl:choose>
      <xsl:when test="batch"><xsl:for-each select="batch/file"><xsl:apply-templates select="document(@href)"/><xsl:text>&#10;</xsl:text></xsl:for-each></xsl:when>
      <xsl:otherwise><xsl:apply-imports/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
`,
  );
  const list = join(dir, 'batch.xml');
  writeFileSync(list, `<batch>${paths.map((p) => `<file href="${pathToFileURL(p).href}"/>`).join('')}</batch>`);
  const { stdout } = await run('xsltproc', ['--nonet', stylesheet, list], { maxBuffer: 64 * 1024 * 1024 });
  const cadenas = stdout.split('\n');
  expect(cadenas.pop(), 'one line per document').to.equal('');
  return cadenas;
}

const m = (value: string) => new Money(value);
const iva16 = (base: string): PaidInvoiceTax => ({ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', base: m(base) });

/** SAT's sample (../shared/sat/samples) as our input: two invoices with IVA 16 %, one settled, one in part. */
const SAMPLE_INPUT: CfdiPaymentInput = {
  type: 'P',
  issuedLocal: '2023-06-13T14:15:16',
  expeditionPlace: '52000',
  issuer: { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', taxRegime: '601' },
  receptor: { rfc: 'COSC8001137NA', name: 'CARLOS CORTES SOTO', taxRegime: '605', postalCode: '52000' },
  payments: [
    {
      paidAt: '2023-06-12T17:18:19',
      form: '03',
      currency: 'MXN',
      currencyDecimals: 2,
      amount: m('15000'),
      operationNumber: '963852',
      payerBankRfc: 'BMI9704113PA',
      payerAccount: '0001970000',
      payeeBankRfc: 'BBA830831LJ2',
      payeeAccount: '0198005000',
      documents: [
        // Second half of a 24,000.00 invoice, then 3,000.00 of a 10,000.00 one.
        {
          uuid: '00000000-1111-2222-3333-00000000000A',
          currency: 'MXN',
          currencyDecimals: 2,
          installment: 2,
          previousBalance: m('12000'),
          amountPaid: m('12000'),
          taxObject: '02',
          invoiceTaxes: { total: m('24000'), taxes: [iva16('20689.66')] },
        },
        {
          uuid: '00000000-1111-2222-3333-00000000000B',
          currency: 'MXN',
          currencyDecimals: 2,
          installment: 1,
          previousBalance: m('10000'),
          amountPaid: m('3000'),
          taxObject: '02',
          invoiceTaxes: { total: m('10000'), taxes: [iva16('8620.69')] },
        },
      ],
    },
  ],
};

describe("Pagos 2.0 (type P) over a generated corpus, refereed by SAT's XSLT, XSD and openssl", function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'pagos20-corpus-'));
  const files: string[] = [];
  const ours: string[] = [];

  before(() => {
    const signer = testSigner();
    for (let seed = 0; seed < CORPUS; seed++) {
      const { comprobante } = buildCfdi(generatePaymentInput(seed));
      ours.push(sealCfdi(comprobante, signer).cadena);
      const file = join(dir, `pago-${seed}.xml`);
      writeFileSync(file, serializeXml(comprobante));
      files.push(file);
    }
  });

  it('covers what the issue asks for', () => {
    const docs = files.map((f) => readFileSync(f, 'utf8'));
    const all = docs.join('\n');
    for (const needle of [
      'MonedaP="MXN" TipoCambioP="1"',
      'MonedaP="USD" TipoCambioP="',
      'MonedaDR="USD"',
      'MonedaDR="MXN" EquivalenciaDR="17.4521"',
      'TasaOCuotaDR="0.160000"',
      'TasaOCuotaDR="0.080000"',
      'TasaOCuotaDR="0.000000"',
      'TipoFactorDR="Exento"',
      '<pago20:RetencionDR',
      'ImpuestoDR="003"',
      'ObjetoImpDR="01"',
      'ObjetoImpDR="02"',
      'ImpSaldoInsoluto="0"',
      'NumParcialidad="3"',
      'TotalRetencionesIVA=',
      'TotalRetencionesISR=',
      'TotalTrasladosBaseIVA8=',
      'TotalTrasladosImpuestoIVA0=',
      'TotalTrasladosBaseIVAExento=',
      '<pago20:RetencionesP>',
    ]) {
      expect(all, needle).to.contain(needle);
    }
    expect(all, 'an EquivalenciaDR with 10 decimals').to.match(/EquivalenciaDR="0\.\d{10}"/);
    expect(all, 'a partial installment').to.match(/ImpSaldoInsoluto="[1-9]\d*\.\d\d"/);
    expect(
      docs.some((d) => d.split('<pago20:Pago ').length > 2),
      'two payments in one CFDI',
    ).to.equal(true);
    expect(
      docs.some((d) => d.split('<pago20:DoctoRelacionado ').length > 3),
      'three documents in one payment',
    ).to.equal(true);
  });

  it('our cadena equals xsltproc running cadenaoriginal_4_0.xslt, byte for byte, for every document', async () => {
    const sat = await satCadenas(dir, files);
    const differing = files.filter((_, i) => sat[i] !== ours[i]);
    expect(differing).to.deep.equal([]);
  });

  it('the cadena read back from the serialized XML is the one that was sealed', () => {
    files.forEach((f, i) => expect(cadenaOriginal(parseXml(readFileSync(f, 'utf8'))), f).to.equal(ours[i]));
  });

  it("every document validates against SAT's XSD bundle (CFDI 4.0 + Pagos 2.0)", async () => {
    expect(await xsdInvalid(files)).to.equal('');
  });

  it('every seal verifies, and passes the Anexo 20 and Pagos 2.0 self-check', () => {
    for (const f of files) {
      const parsed = parseXml(readFileSync(f, 'utf8'));
      expect(verifyCfdiSeal(parsed), f).to.equal(true);
      expect(checkCfdiAmounts(parsed), f).to.deep.equal([]);
    }
  });

  it("openssl verifies the seal against the cadena with the certificate's public key", async () => {
    const documents = files.slice(0, 5).map((f, i) => ({ xml: readFileSync(f, 'utf8'), cadena: ours[i]! }));
    expect(await opensslVerdicts(dir, testSigner().certificateBase64, documents)).to.deep.equal(documents.map(() => 'Verified OK'));
  });

  it("rebuilds SAT's sample from an input: the same cadena as xsltproc on the sample, hence the same Sello", async () => {
    const [satCadena] = await satCadenas(dir, [SAT_SAMPLE]);
    const { comprobante } = buildCfdi(SAMPLE_INPUT);
    const { cadena, seal } = sealCfdi(comprobante, testSigner());
    expect(cadena).to.equal(satCadena);
    const sample = parseXml(readFileSync(SAT_SAMPLE, 'utf8'));
    // RSA PKCS#1 v1.5 is deterministic: the same cadena and key give SAT's sample's own seal.
    expect(seal).to.equal(attribute(sample, 'Sello'));
    expect(cadenaOriginal(sample)).to.equal(satCadena);
    expect(checkCfdiAmounts(sample)).to.deep.equal([]);
  });
});
