/**
 * A fake PAC on loopback, speaking SW Sapien's stamp v4 wire format (see shared/pac/sw-pac-client.ts).
 * It does what a PAC does before stamping: SAT's XSD (xmllint over data/sat/xsd, when installed), the
 * cadena original recomputed and the seal verified against the document's own certificate, Anexo 20's
 * arithmetic, Fecha no older than 72 hours, and the receptor's name, zip and regime against the
 * taxpayers it knows. It then adds a TimbreFiscalDigital 1.1 with a fresh UUID, sealed with its own test
 * certificate, and returns the earlier stamp (SW's "307") when the same sealed document comes again.
 * The development default (no PAC_BASE_URL outside production) and what tests script.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID, createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { checkCfdiAmounts } from '../shared/cfdi/check-cfdi-amounts.js';
import { tfdCadenaOriginal } from '../shared/cfdi/cadena-original.js';
import { parseXml, XmlParseError } from '../shared/cfdi/parse-xml.js';
import { csdSigner, verifyCfdiSeal, type CsdSigner } from '../shared/cfdi/seal-cfdi.js';
import { serializeXml } from '../shared/cfdi/serialize-xml.js';
import { attribute, child, element, type XmlElement } from '../shared/cfdi/xml-element.js';

export interface RegisteredTaxpayer {
  rfc: string;
  name: string;
  zip: string;
  regimes: string[];
}

export type FakePacAnswer =
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'hang' }
  /** Stamps the document, then never answers: the client times out not knowing it succeeded. */
  | { kind: 'stamp-and-hang' }
  /** Goes on as normal once `until` settles: a test keeps a stamp in flight for as long as it needs, without a timer. */
  | { kind: 'held'; until: Promise<unknown> }
  | { kind: 'refuse'; code: string; message: string };

export interface FakePacServer {
  url: string;
  token: string;
  /** Answers for the next stamp calls, in order; afterwards the normal behaviour. */
  script(...answers: FakePacAnswer[]): void;
  register(taxpayer: RegisteredTaxpayer): void;
  /** Added before every answer (benchmarks model a real PAC's latency with it). */
  latencyMs: number;
  calls: { uuid?: string; outcome: string }[];
  /** The certificate that signs SelloSAT (DER). */
  certificate: Buffer;
  close(): Promise<void>;
}

const TFD_NS = 'http://www.sat.gob.mx/TimbreFiscalDigital';
const TFD_SCHEMA = `${TFD_NS} http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd`;
const PAC_RFC = 'SPR190613I52';
const XSD_BUNDLE = new URL('../data/sat/xsd/cfdi40-bundle.xsd', import.meta.url).pathname;
const CERT_DIR = new URL('./pac-test-csd/', import.meta.url);
const SEVENTY_TWO_HOURS_MS = 72 * 3600 * 1000;

/** SAT's public test taxpayers and the receptors the tests use; other RFCs are not checked. */
const TAXPAYERS: RegisteredTaxpayer[] = [
  { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', zip: '42501', regimes: ['601'] },
  { rfc: 'CACX7605101P8', name: 'XOCHILT CASAS CHAVEZ', zip: '36257', regimes: ['612', '626'] },
  { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', zip: '86991', regimes: ['601'] },
  { rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI', zip: '54700', regimes: ['603'] },
];

class Refusal extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** The XML in the multipart field `xml` (what SW's API receives). */
function xmlFromMultipart(body: Buffer, contentType: string): string | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return undefined;
  const delimiter = `--${boundary[1] ?? boundary[2]}`;
  for (const part of body.toString('utf8').split(delimiter)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0 || !/name="xml"/.test(part.slice(0, headerEnd))) continue;
    return part.slice(headerEnd + 4).replace(/\r\n$/, '');
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface XsdCheck {
  xml: string;
  done: (error: string | undefined) => void;
}

/**
 * SAT's XSD through xmllint (skipped, once reported, when it is not installed). Loading the 2 MB schema is
 * most of xmllint's cost, so the documents that arrive while one run is going are checked together in the next.
 */
function xsdChecker(): (xml: string) => Promise<string | undefined> {
  let available = true;
  let running = false;
  let waiting: XsdCheck[] = [];

  async function checkBatch(batch: XsdCheck[]): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'fake-pac-'));
    try {
      const paths = await Promise.all(batch.map(async (check, i) => {
        const path = join(dir, `${i}.xml`);
        await writeFile(path, check.xml);
        return path;
      }));
      const stderr = await new Promise<string | undefined>((resolve) => {
        const proc = spawn('xmllint', ['--noout', '--nonet', '--schema', XSD_BUNDLE, ...paths]);
        let out = '';
        proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
        proc.on('error', () => resolve(undefined));
        proc.on('close', () => resolve(out));
      });
      if (stderr === undefined) {
        available = false;
        process.emitWarning('fake PAC: xmllint not found, XSD validation skipped (apt-get install libxml2-utils)');
      }
      batch.forEach((check, i) => {
        const path = paths[i]!;
        if (stderr === undefined || !stderr.includes(`${path} fails to validate`)) return check.done(undefined);
        const lines = stderr.split('\n').filter((line) => line.startsWith(`${path}:`));
        check.done((lines.find((line) => line.includes('error')) ?? lines[0] ?? 'fails to validate').slice(path.length + 1));
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  function next(): void {
    if (running || waiting.length === 0) return;
    running = true;
    const batch = waiting;
    waiting = [];
    void checkBatch(batch)
      .catch((err: unknown) => {
        process.emitWarning(`fake PAC: XSD check could not run (${String(err)}), documents passed unchecked`);
        batch.forEach((check) => check.done(undefined));
      })
      .finally(() => {
        running = false;
        next();
      });
  }

  return (xml) => {
    if (!available) return Promise.resolve(undefined);
    return new Promise((done) => {
      waiting.push({ xml, done });
      next();
    });
  };
}

/** A sealed document is known by its seal. */
function sealKey(seal: string): string {
  return createHash('sha256').update(seal).digest('hex');
}

/** The key of the document in `xml`; undefined when it is not readable XML. */
function documentKey(xml: string): string | undefined {
  try {
    return sealKey(attribute(parseXml(xml), 'Sello') ?? '');
  } catch {
    return undefined;
  }
}

/** Fecha is wall-clock time at LugarExpedicion; Mexico's main zone (UTC−6, no DST since 2022) stands for all here. */
function fechaAgeMs(fecha: string, now: Date): number {
  return now.getTime() - new Date(`${fecha}-06:00`).getTime();
}

function mexicoCityNow(now: Date): string {
  return new Date(now.getTime() - 6 * 3600 * 1000).toISOString().slice(0, 19);
}

function checkReceptor(comprobante: XmlElement, taxpayers: Map<string, RegisteredTaxpayer>): void {
  const receptor = child(comprobante, 'cfdi:Receptor');
  const known = taxpayers.get(attribute(receptor ?? comprobante, 'Rfc') ?? '');
  if (!receptor || !known) return;
  if (attribute(receptor, 'Nombre') !== known.name) throw new Refusal('CFDI40145', 'El campo Nombre del receptor, debe pertenecer al nombre asociado al RFC registrado en el campo Rfc del Receptor.');
  if (attribute(receptor, 'DomicilioFiscalReceptor') !== known.zip) throw new Refusal('CFDI40147', 'El campo DomicilioFiscalReceptor del receptor, debe pertenecer al nombre asociado al RFC registrado en el campo Rfc del Receptor.');
  if (!known.regimes.includes(attribute(receptor, 'RegimenFiscalReceptor') ?? '')) throw new Refusal('CFDI40158', 'La clave del campo RegimenFiscalR debe corresponder con el régimen del RFC receptor registrado en el SAT.');
}

export async function startFakePacServer(options: { port?: number; latencyMs?: number } = {}): Promise<FakePacServer> {
  const certificate = readFileSync(new URL('CSD01_AAA010101AAA.cer', CERT_DIR));
  const signer: CsdSigner = csdSigner(certificate, readFileSync(new URL('CSD01_AAA010101AAA.key', CERT_DIR)), '12345678a');
  const token = `fake-pac-${randomUUID()}`;
  const taxpayers = new Map(TAXPAYERS.map((t) => [t.rfc, t]));
  const scripts: FakePacAnswer[] = [];
  const stamped = new Map<string, Record<string, string>>();
  const calls: FakePacServer['calls'] = [];
  const turns = new Map<string, Promise<void>>();
  const xsdErrors = xsdChecker();

  /**
   * Runs `work` once earlier work for the same sealed document has finished. A retry then finds the stamp of
   * the request it retries (still in xmllint after its client gave up) instead of racing it to a second outcome.
   */
  function inTurn(key: string | undefined, work: () => Promise<void>): Promise<void> {
    if (key === undefined) return work();
    const turn = (turns.get(key) ?? Promise.resolve()).then(work);
    const done = turn.catch(() => undefined);
    turns.set(key, done);
    void done.then(() => {
      if (turns.get(key) === done) turns.delete(key);
    });
    return turn;
  }

  function stamp(xml: string, now: Date): { data: Record<string, string>; previous: boolean } {
    let comprobante: XmlElement;
    try {
      comprobante = parseXml(xml);
    } catch (err) {
      throw new Refusal('301', `XML mal formado: ${err instanceof XmlParseError ? err.message : 'unreadable'}`);
    }
    const seal = attribute(comprobante, 'Sello') ?? '';
    const key = sealKey(seal);
    const earlier = stamped.get(key);
    if (earlier) return { data: earlier, previous: true };
    if (!verifyCfdiSeal(comprobante)) throw new Refusal('CFDI40102', 'El resultado de la digestión debe ser igual al resultado de desencriptar el sello.');
    const age = fechaAgeMs(attribute(comprobante, 'Fecha') ?? '', now);
    if (!(age <= SEVENTY_TWO_HOURS_MS)) throw new Refusal('401', 'El rango de la fecha de generación no debe de ser mayor a 72 horas para la emisión del timbre.');
    const finding = checkCfdiAmounts(comprobante)[0];
    if (finding) throw new Refusal(finding.satCode, finding.message);
    checkReceptor(comprobante, taxpayers);

    const uuid = randomUUID().toUpperCase();
    const tfd = element('tfd:TimbreFiscalDigital', {
      'xmlns:tfd': TFD_NS, 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xsi:schemaLocation': TFD_SCHEMA,
      Version: '1.1', UUID: uuid, FechaTimbrado: mexicoCityNow(now), RfcProvCertif: PAC_RFC, SelloCFD: seal, NoCertificadoSAT: signer.certificateNumber,
    });
    const tfdCadena = tfdCadenaOriginal(tfd);
    tfd.attributes.push(['SelloSAT', createSign('RSA-SHA256').update(tfdCadena, 'utf8').sign(signer.privateKey, 'base64')]);
    let complemento = child(comprobante, 'cfdi:Complemento');
    if (!complemento) {
      complemento = element('cfdi:Complemento', {});
      comprobante.children.push(complemento);
    }
    complemento.children.push(tfd);
    const data = {
      cfdi: serializeXml(comprobante), cadenaOriginalSAT: tfdCadena, noCertificadoSAT: signer.certificateNumber,
      noCertificadoCFDI: attribute(comprobante, 'NoCertificado') ?? '', uuid, selloSAT: attribute(tfd, 'SelloSAT') ?? '', selloCFDI: seal,
      fechaTimbrado: attribute(tfd, 'FechaTimbrado') ?? '',
    };
    stamped.set(key, data);
    return { data, previous: false };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const json = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (req.method !== 'POST' || req.url !== '/cfdi33/stamp/v4') return json(404, { status: 'error', message: 'not found' });
      if (req.headers.authorization !== `Bearer ${token}`) return json(401, { status: 'error', message: 'AU2000 - token inválido' });
      if (fake.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.latencyMs));
      const scripted = scripts.shift();
      switch (scripted?.kind) {
        case 'status':
          calls.push({ outcome: `status ${scripted.status}` });
          return json(scripted.status, { status: 'error', message: 'scripted' });
        case 'garbage':
          calls.push({ outcome: 'garbage' });
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
        case 'hang':
          calls.push({ outcome: 'hang' });
          return;
        case 'refuse':
          calls.push({ outcome: `refused ${scripted.code}` });
          return json(400, { status: 'error', message: `${scripted.code} - ${scripted.message}`, messageDetail: null });
        case 'held':
          await scripted.until;
          break;
        default:
      }
      const xml = xmlFromMultipart(body, req.headers['content-type'] ?? '');
      if (!xml) return json(400, { status: 'error', message: '300 - No se encontró el XML en la petición.', messageDetail: null });
      const key = documentKey(xml);
      await inTurn(key, async () => {
        // A document stamped before gets its stamp back (SW's 307); its schema was checked the first time.
        const invalid = key !== undefined && stamped.has(key) ? undefined : await xsdErrors(xml);
        if (invalid) {
          calls.push({ outcome: 'refused XSD' });
          return void json(400, { status: 'error', message: `CFDI40101 - El XML no cumple con el esquema: ${invalid}`, messageDetail: invalid });
        }
        try {
          const { data, previous } = stamp(xml, new Date());
          calls.push({ uuid: data.uuid, outcome: previous ? 'previously stamped' : scripted?.kind === 'stamp-and-hang' ? 'stamped, no answer' : 'stamped' });
          if (scripted?.kind === 'stamp-and-hang') return;
          if (previous) return void json(200, { status: 'error', message: '307. El comprobante contiene un timbre previo.', messageDetail: null, data });
          json(200, { status: 'success', data });
        } catch (err) {
          if (!(err instanceof Refusal)) throw err;
          calls.push({ outcome: `refused ${err.code}` });
          json(400, { status: 'error', message: `${err.code} - ${err.message}`, messageDetail: null });
        }
      });
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake PAC: no port');
  const fake: FakePacServer = {
    url: `http://127.0.0.1:${address.port}`,
    token,
    latencyMs: options.latencyMs ?? 0,
    script: (...answers) => void scripts.push(...answers),
    register: (taxpayer) => void taxpayers.set(taxpayer.rfc, taxpayer),
    calls,
    certificate,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
  return fake;
}
