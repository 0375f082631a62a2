// The stamping pipeline's steps on one core, per document: build the CFDI, its cadena original, the
// seal, the fake PAC round trip over HTTP (its XSD check by xmllint included), and the PDF. Part of
// `npm run bench`; runnable alone: `npx tsx bench/cfdi-steps.ts`.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { startFakePacServer } from '../fakes/pac-server.js';
import { buildCfdi } from '../shared/domain/cfdi/build-cfdi.js';
import { cadenaOriginal } from '../shared/domain/cfdi/cadena-original.js';
import { csdSigner, sealCfdi } from '../shared/domain/cfdi/seal-cfdi.js';
import { serializeXml } from '../shared/domain/cfdi/serialize-xml.js';
import { swPacClient } from '../shared/adapters/pac/sw-pac-client.js';
import { invoicePdfDataFromXml } from '../shared/pdf/invoice-pdf-data.js';
import { renderInvoicePdf } from '../shared/pdf/render-invoice-pdf.js';
import { satCatalogs } from '../shared/sat/catalogs.js';
import { localDateTime } from '../shared/domain/time-zone.js';
import { generateCfdiInput } from '../test/fixtures/cfdi/generate-cfdi-input.js';

const PDF_WARM_UP = 100;
const PDF_TIMED = 400;

export interface CfdiStepFigures {
  buildMs: number;
  cadenaMs: number;
  sealMs: number;
  pacMs: number;
  pacSlowMs: number;
  pdfMs: number;
  pdfPerSecond: number;
  /** Mean sizes of a stamped CFDI (the generated corpus: 1 to several concepts) and of its PDF, for the capacity plan. */
  xmlBytes: number;
  pdfBytes: number;
}

async function perCall(count: number, run: (i: number) => unknown, warmUp = Math.min(20, count)): Promise<number> {
  for (let i = 0; i < warmUp; i++) await run(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await run(i);
  return Math.round(Number(process.hrtime.bigint() - start) / 1e3 / count) / 1e3;
}

export async function benchCfdiSteps(): Promise<CfdiStepFigures> {
  const dir = new URL('../data/sat/test-csd/', import.meta.url);
  const signer = csdSigner(readFileSync(new URL('EKU9003173C9.cer', dir)), readFileSync(new URL('EKU9003173C9.key', dir)), '12345678a');
  const inputs = Array.from({ length: 200 }, (_, i) => ({ ...generateCfdiInput(i), issuedLocal: localDateTime(new Date(), 'America/Mexico_City') }));
  const buildMs = await perCall(2000, (i) => buildCfdi(inputs[i % 200]!));
  const built = inputs.map((input) => buildCfdi(input).comprobante);
  const cadenaMs = await perCall(2000, (i) => cadenaOriginal(built[i % 200]!));
  const sealMs = await perCall(500, (i) => sealCfdi(built[i % 200]!, signer));
  const pac = await startFakePacServer();
  const client = swPacClient(pac.url, pac.token, 10_000, `${pac.url}/ConsultaCFDIService.svc`);
  const sealed = inputs.map((input, i) => {
    const { comprobante } = buildCfdi({ ...input, folio: `bench-${Date.now()}-${i}` });
    sealCfdi(comprobante, signer);
    return serializeXml(comprobante);
  });
  const pacMs = await perCall(100, (i) => client.stamp(sealed[i % 200]!, {}));
  pac.latencyMs = 300;
  const pacSlowMs = await perCall(5, async (i) => client.stamp(sealed[(i + 150) % 200]!, {}));
  // Every PDF of a worker is of a new document (its seals, UUID and QR never seen before): 500 distinct
  // stamped documents, from the PAC at once and without its schema check, each rendered once.
  pac.latencyMs = 0;
  pac.validates = false;
  const distinct: string[] = [];
  for (let i = 0; i < PDF_WARM_UP + PDF_TIMED; i++) {
    const { comprobante } = buildCfdi({ ...inputs[i % 200]!, folio: `bench-pdf-${Date.now()}-${i}` });
    sealCfdi(comprobante, signer);
    distinct.push((await client.stamp(serializeXml(comprobante), {})).xml);
  }
  await pac.close();
  const catalogs = satCatalogs();
  // A worker renders PDFs all day: the first ones bring the layout's code to V8's optimizing tier, then
  // the timed ones (~2 s) give the steady rate.
  const pdf = (xml: string): Promise<Buffer> => renderInvoicePdf(invoicePdfDataFromXml(xml, catalogs), {});
  for (let i = 0; i < PDF_WARM_UP; i++) await pdf(distinct[i]!);
  let pdfBytesTotal = 0;
  const pdfMs = await perCall(PDF_TIMED, async (i) => (pdfBytesTotal += (await pdf(distinct[PDF_WARM_UP + i]!)).length), 0);
  const xmlBytes = Math.round(distinct.slice(PDF_WARM_UP).reduce((sum, xml) => sum + Buffer.byteLength(xml), 0) / PDF_TIMED);
  return { buildMs, cadenaMs, sealMs, pacMs, pacSlowMs, pdfMs, pdfPerSecond: Math.round(1000 / pdfMs), xmlBytes, pdfBytes: Math.round(pdfBytesTotal / PDF_TIMED) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchCfdiSteps().then(
    (f) => {
      process.stdout.write(`${JSON.stringify(f)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exit(1);
    },
  );
}
