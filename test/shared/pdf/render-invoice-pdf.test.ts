import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sharp from 'sharp';
import { invoicePdfDataFromXml } from '../../../shared/pdf/invoice-pdf-data.js';
import { renderInvoicePdf } from '../../../shared/pdf/render-invoice-pdf.js';
import { satCatalogs } from '../../../shared/sat/catalogs.js';
import { decodeQrPng } from '../../helpers/decode-qr.js';

const run = promisify(execFile);
const SAMPLE = readFileSync(fileURLToPath(new URL('../../fixtures/cfdi/stamped-sample.xml', import.meta.url)), 'utf8');
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
/** SAT's stylesheet beside the repository (../shared/sat), the independent referee of the TFD's cadena. */
const TFD_XSLT = fileURLToPath(new URL('../../../../shared/sat/schemas/www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/cadenaoriginal_TFD_1_1.xslt', import.meta.url));

const UUID = '6F35D3B5-3651-5370-BC2C-14CDBE384CD7';
const SELLO_CFD = /SelloCFD="([^"]+)"/.exec(SAMPLE)![1]!;
// id, both RFCs, Total without trailing zeros, last 8 characters of the Sello (Anexo 20).
const VERIFICATION_URL = `https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=${UUID}` + '&re=EKU9003173C9&rr=MCI7306249Y1&tt=3327.01&fe=KklI5Q==';

const catalogs = satCatalogs();

/**
 * The QR on a rendered page. jsQR binarizes locally, and the page's anti-aliased gray text misleads its
 * finder-pattern search at some resolutions; a global black/white threshold first makes it reliable.
 */
async function decodeQrOnPage(page: Buffer): Promise<string | undefined> {
  return decodeQrPng(await sharp(page).greyscale().threshold(128).png().toBuffer());
}

/** The sample with its one concept repeated `count` times (the totals no longer add up; the PDF does not check). */
function withConcepts(count: number): string {
  const concept = /<cfdi:Concepto [\s\S]*?<\/cfdi:Concepto>/.exec(SAMPLE)![0];
  return SAMPLE.replace(concept, Array.from({ length: count }, () => concept).join('\n'));
}

/** The sample as a global invoice replacing another, with ISR withheld (amounts as written, not recomputed). */
function withGlobalRelatedAndWithholding(): string {
  return SAMPLE.replace(
    '<cfdi:Emisor',
    '<cfdi:InformacionGlobal Periodicidad="04" Meses="01" Año="2025"/>' +
      '<cfdi:CfdiRelacionados TipoRelacion="04"><cfdi:CfdiRelacionado UUID="11111111-2222-3333-4444-555555555555"/>' +
      '</cfdi:CfdiRelacionados><cfdi:Emisor',
  )
    .replace(
      '</cfdi:Traslados>\n      </cfdi:Impuestos>',
      '</cfdi:Traslados><cfdi:Retenciones>' +
        '<cfdi:Retencion Base="2868.11" Impuesto="001" TipoFactor="Tasa" TasaOCuota="0.012500" Importe="35.85"/>' +
        '</cfdi:Retenciones>\n      </cfdi:Impuestos>',
    )
    .replace(
      '<cfdi:Impuestos TotalImpuestosTrasladados="458.90">',
      '<cfdi:Impuestos TotalImpuestosTrasladados="458.90" TotalImpuestosRetenidos="35.85">' +
        '<cfdi:Retenciones><cfdi:Retencion Impuesto="001" Importe="35.85"/></cfdi:Retenciones>',
    );
}

/** The TFD element alone, as SAT's stylesheet expects it (xsi is declared on the Comprobante). */
function tfdDocument(xml: string): string {
  const tfd = /<tfd:TimbreFiscalDigital [^>]*\/>/.exec(xml)![0];
  return tfd.replace('<tfd:TimbreFiscalDigital ', '<tfd:TimbreFiscalDigital xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ');
}

describe('printed representation of a stamped CFDI (PDF)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'invoice-pdf-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function pdfFile(name: string, pdf: Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, pdf);
    return path;
  }

  async function pdfText(path: string, page?: number): Promise<string> {
    const pages = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
    return (await run('pdftotext', ['-layout', ...pages, path, '-'])).stdout;
  }

  async function pageCount(path: string): Promise<number> {
    const { stdout } = await run('pdfinfo', [path]);
    return Number(/^Pages:\s+(\d+)$/m.exec(stdout)?.[1]);
  }

  it('reads the stamped CFDI: document, parties, concepts, taxes and stamp', () => {
    const data = invoicePdfDataFromXml(SAMPLE, catalogs);
    expect(data).to.deep.include({
      date: '2025-02-19T08:32:29',
      subtotal: '3824.15',
      discount: '956.04',
      total: '3327.01',
      placeOfIssue: '86000',
      certificateNumber: '30001000000500003416',
      series: undefined,
      folio: undefined,
      exchangeRate: undefined,
      globalInformation: undefined,
      relatedCfdis: [],
    });
    expect(data.paymentForm).to.deep.equal({ code: '01', description: 'Efectivo' });
    expect(data.paymentMethod).to.deep.equal({ code: 'PUE', description: 'Pago en una sola exhibición' });
    expect(data.receiptType).to.deep.equal({ code: 'I', description: 'Ingreso' });
    expect(data.issuer).to.deep.equal({
      rfc: 'EKU9003173C9',
      name: 'ESCUELA KEMPER URGATE',
      taxRegime: { code: '601', description: 'General de Ley Personas Morales' },
    });
    expect(data.receiver).to.deep.include({ rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI', taxZipCode: '54700' });
    expect(data.receiver.cfdiUse).to.deep.equal({ code: 'G03', description: 'Gastos en general.' });
    expect(data.concepts).to.have.length(1);
    expect(data.concepts[0]).to.deep.include({
      identification: 'GAMEPAD007',
      quantity: '4',
      unit: 'PIEZA',
      description: 'Portable tetris gamepad pro++ ⏻',
      unitValue: '956.04',
      amount: '3824.15',
      discount: '956.04',
      withholdings: [],
    });
    expect(data.concepts[0]!.productKey).to.deep.equal({ code: '52161557', description: 'Consola fija de juegos de computador' });
    expect(data.concepts[0]!.transfers).to.deep.equal([
      {
        base: '2868.11',
        tax: { code: '002', description: 'IVA' },
        factor: 'Tasa',
        rate: '0.160000',
        amount: '458.90',
      },
    ]);
    expect(data.taxes).to.deep.include({ totalTransferred: '458.90', totalWithheld: undefined, withholdings: [] });
    expect(data.stamp).to.deep.include({
      uuid: UUID,
      stampedAt: '2025-02-19T08:37:30',
      pacRfc: 'CVD110412TF6',
      satCertificateNumber: '30001000000500003456',
      cfdSeal: SELLO_CFD,
      legend: undefined,
    });
    expect(data.stamp.satSeal).to.match(/^J2cEYYzNx7DN.*R6\/Iw==$/);
    expect(data.stamp.originalString).to.equal(`||1.1|${UUID}|2025-02-19T08:37:30|CVD110412TF6|${SELLO_CFD}|30001000000500003456||`);
  });

  it("builds the TFD cadena exactly as SAT's cadenaoriginal_TFD_1_1.xslt, with and without Leyenda", async function () {
    if (!existsSync(TFD_XSLT)) this.skip();
    const withLegend = SAMPLE.replace('RfcProvCertif=', 'Leyenda="  Una   leyenda\tdel PAC " RfcProvCertif=');
    for (const xml of [SAMPLE, withLegend]) {
      const path = await pdfFile('tfd.xml', Buffer.from(tfdDocument(xml)));
      // SAT's stylesheets declare XSLT 2.0: xsltproc warns on stderr and still produces the right text.
      const { stdout } = await run('xsltproc', ['--nonet', TFD_XSLT, path]);
      expect(invoicePdfDataFromXml(xml, catalogs).stamp.originalString).to.equal(stdout);
    }
    expect(invoicePdfDataFromXml(withLegend, catalogs).stamp.originalString).to.include('|CVD110412TF6|Una leyenda del PAC|');
  });

  it('accepts a leading byte order mark', () => {
    expect(invoicePdfDataFromXml(`\uFEFF${SAMPLE}`, catalogs).stamp.uuid).to.equal(UUID);
  });

  it('reads InformacionGlobal, CfdiRelacionados and withholdings when present', () => {
    const data = invoicePdfDataFromXml(withGlobalRelatedAndWithholding(), catalogs);
    expect(data.globalInformation).to.deep.equal({
      periodicity: { code: '04', description: 'Mensual' },
      months: { code: '01', description: 'Enero' },
      year: '2025',
    });
    expect(data.relatedCfdis).to.deep.equal([
      {
        relationType: { code: '04', description: 'Sustitución de los CFDI previos' },
        uuids: ['11111111-2222-3333-4444-555555555555'],
      },
    ]);
    const isr = { code: '001', description: 'ISR' };
    expect(data.concepts[0]!.withholdings).to.deep.equal([{ base: '2868.11', tax: isr, factor: 'Tasa', rate: '0.012500', amount: '35.85' }]);
    expect(data.taxes).to.deep.include({ totalWithheld: '35.85' });
    expect(data.taxes!.withholdings).to.deep.equal([{ base: undefined, tax: isr, factor: undefined, rate: undefined, amount: '35.85' }]);
  });

  it('refuses what is not a stamped CFDI 4.0', () => {
    const unstamped = SAMPLE.replace(/<cfdi:Complemento>[\s\S]*<\/cfdi:Complemento>/, '');
    const cfdi33 = SAMPLE.replace('http://www.sat.gob.mx/cfd/4', 'http://www.sat.gob.mx/cfd/3').replace('Version="4.0"', 'Version="3.3"');
    const cases: [string, RegExp][] = [
      ['this is not XML', /not a stamped CFDI 4\.0/],
      ['<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0"', /not a stamped CFDI 4\.0: the XML is not well-formed/],
      ['<factura total="1"/>', /not a stamped CFDI 4\.0: the root is not a cfdi:Comprobante/],
      [cfdi33, /not a stamped CFDI 4\.0: the root is not a cfdi:Comprobante Version 4\.0/],
      [unstamped, /not a stamped CFDI 4\.0: it has no tfd:TimbreFiscalDigital/],
      [SAMPLE.replace(' Rfc="MCI7306249Y1"', ''), /cfdi:Receptor has no Rfc/],
    ];
    for (const [xml, message] of cases) expect(() => invoicePdfDataFromXml(xml, catalogs), xml.slice(0, 40)).to.throw(Error, message);
  });

  it('renders one page with the document, its stamp and a verification QR a camera reads', async function () {
    this.timeout(30_000);
    const pdf = await renderInvoicePdf(invoicePdfDataFromXml(SAMPLE, catalogs), {});
    const path = await pdfFile('sample.pdf', pdf);
    expect(await pageCount(path)).to.equal(1);

    const text = await pdfText(path);
    for (const expected of [
      'Este documento es una representación impresa de un CFDI',
      UUID,
      'EKU9003173C9',
      'ESCUELA KEMPER URGATE',
      'MCI7306249Y1',
      'MUNICIPIO DE CUAUTITLAN IZCALLI',
      '3,327.01',
      '3,824.15',
      '458.90',
      'TRES MIL TRESCIENTOS VEINTISIETE PESOS 01/100 M.N.',
      '30001000000500003416',
      '30001000000500003456',
      'CVD110412TF6',
      '2025-02-19T08:37:30',
      '601 - General de Ley Personas Morales',
      'G03 - Gastos en general.',
      '01 - Efectivo',
      'PUE - Pago en una sola exhibición',
      'GAMEPAD007',
      '52161557',
      'Página 1 de 1',
      // Outside the standard fonts' character set, ⏻ prints as "?".
      'Portable tetris gamepad pro++ ?',
    ])
      expect(text, expected).to.include(expected);
    // The seals and the cadena wrap: every character is there once line breaks are removed.
    const joined = text.replace(/\s+/g, '');
    expect(joined).to.include(SELLO_CFD);
    expect(joined).to.include(`||1.1|${UUID}|2025-02-19T08:37:30|CVD110412TF6|${SELLO_CFD}|30001000000500003456||`);

    const prefix = join(dir, 'page1');
    await run('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-singlefile', path, prefix]);
    const page = await readFile(`${prefix}.png`);
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(join(ARTIFACTS, 'render-invoice-pdf-page1.png'), page);
    expect(await decodeQrOnPage(page)).to.equal(VERIFICATION_URL);
  });

  it('is deterministic (CreationDate is FechaTimbrado in central Mexico) and draws a logo', async function () {
    this.timeout(30_000);
    const data = invoicePdfDataFromXml(SAMPLE, catalogs);
    const first = await renderInvoicePdf(data, {});
    expect((await renderInvoicePdf(data, {})).equals(first)).to.equal(true);
    const { stdout } = await run('pdfinfo', ['-isodates', await pdfFile('again.pdf', first)]);
    expect(stdout).to.match(/^CreationDate:\s+2025-02-19T14:37:30Z$/m);

    const logo = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#1f4e99' } })
      .png()
      .toBuffer();
    const withLogo = await pdfFile('logo.pdf', await renderInvoicePdf(data, { logo }));
    expect(await pageCount(withLogo)).to.equal(1);
    const { stdout: images } = await run('pdfimages', ['-list', withLogo]);
    // The header lines, then one row per image: the QR and the logo.
    expect(images.trim().split('\n').slice(2)).to.have.length(2);
  });

  it('prints InformacionGlobal, CfdiRelacionados and withholdings when present', async () => {
    const path = await pdfFile('global.pdf', await renderInvoicePdf(invoicePdfDataFromXml(withGlobalRelatedAndWithholding(), catalogs), {}));
    const text = await pdfText(path);
    for (const expected of [
      'Información global',
      '04 - Mensual',
      '01 - Enero',
      'CFDI relacionados',
      '04 - Sustitución de los CFDI previos',
      '11111111-2222-3333-4444-555555555555',
      'Retención ISR, base 2,868.11, tasa 0.012500, importe 35.85',
      'Impuestos retenidos',
      '35.85',
    ])
      expect(text, expected).to.include(expected);
  });

  it('spreads 60 concepts over several pages, repeating the column headers', async function () {
    this.timeout(30_000);
    const data = invoicePdfDataFromXml(withConcepts(60), catalogs);
    expect(data.concepts).to.have.length(60);
    const path = await pdfFile('sixty.pdf', await renderInvoicePdf(data, {}));
    const pages = await pageCount(path);
    expect(pages).to.be.greaterThan(1);
    const second = await pdfText(path, 2);
    expect(second).to.include('Valor unitario');
    expect(second).to.include(`Página 2 de ${pages}`);
    expect((await pdfText(path)).match(/GAMEPAD007/g)).to.have.length(60);
    expect(await pdfText(path, pages)).to.include(UUID);
  });
});
