/**
 * A fake PAC on loopback, speaking SW Sapien's Timbrado V4 wire format (see shared/adapters/pac/sw-pac-client.ts,
 * which names the sources of each answer).
 * It does what a PAC does before stamping: SAT's XSD (xmllint over data/sat/xsd, when installed), the
 * cadena original recomputed and the seal verified against the document's own certificate, Anexo 20's
 * arithmetic, Fecha no older than 72 hours, and the receptor's name, zip and regime against the
 * taxpayers it knows. It then adds a TimbreFiscalDigital 1.1 with a fresh UUID, sealed with its own test
 * certificate (its UUID in lower case, as SW writes it), and returns the earlier stamp when the same sealed
 * document comes again (SW's "307", on HTTP 400) or another document under a `customid` it stamped within
 * the last 72 hours (SW's "CFDI3307").
 * It also cancels what it stamped (SW's cancel by CSD, with SAT's rule on when the receptor must accept)
 * and answers for it as SAT's public status service (ConsultaCFDIService) would; tests play the receptor.
 * It takes SW's two kinds of token (shared/adapters/pac/sw-token.ts): its "infinite" one (`token`, which
 * `regenerateToken()` replaces, as SW's portal does) and session tokens from `/v2/security/authenticate` with
 * `credentials`, living `tokenLifetimeMs` (2 hours, as SW's SDKs document).
 * The development default (no PAC_BASE_URL outside production) and what tests script.
 */
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, createSign, randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openPacJournal, type StampedCfdi } from './pac-journal.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Decimal } from 'decimal.js';
import { checkCfdiAmounts } from '../shared/domain/cfdi/check-cfdi-amounts.js';
import { tfdCadenaOriginal } from '../shared/domain/cfdi/cadena-original.js';
import { parseXml, XmlParseError } from '../shared/domain/cfdi/parse-xml.js';
import { codePointName, firstNonXmlChar } from '../shared/domain/cfdi/xml-chars.js';
import { csdSigner, verifyCfdiSeal, type CsdSigner } from '../shared/domain/cfdi/seal-cfdi.js';
import { escapeAttribute, serializeXml } from '../shared/domain/cfdi/serialize-xml.js';
import { attribute, child, element, type XmlElement } from '../shared/domain/cfdi/xml-element.js';
import { textsByLocalName } from '../shared/adapters/pac/xml-texts.js';

export interface RegisteredTaxpayer {
  rfc: string;
  name: string;
  zip: string;
  regimes: string[];
}

export type FakePacAnswer =
  /** An HTTP status with SW's error envelope; `retryAfter`, a Retry-After header (SW's sources are silent on throttling: a 429 here is what an HTTP service says). */
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'garbage' }
  | { kind: 'hang' }
  /** Does the work (stamps, or cancels), then never answers: the client times out not knowing it succeeded. */
  | { kind: 'stamp-and-hang' }
  /** Goes on as normal once `until` settles: a test keeps a stamp in flight for as long as it needs, without a timer. */
  | { kind: 'held'; until: Promise<unknown> }
  | { kind: 'refuse'; code: string; message: string }
  /** SW's "CO1000 - Error No Controlado": its own failure, nothing stamped. */
  | { kind: 'co1000' }
  /** Stamps (unless stamped before), then answers SW's 307 without `data`: the stamp exists and is not handed over. */
  | { kind: 'withheld' };

export interface FakePacServer {
  url: string;
  /** The account's "infinite" token, as SW's portal shows it. */
  token: string;
  /** The account's user and password for `/v2/security/authenticate`; a test changes them to see them refused. */
  credentials: { user: string; password: string };
  /** Life of a session token from now on (SW: 2 hours). */
  tokenLifetimeMs: number;
  /** Every session token issued so far expires now (their next call gets 401). */
  expireTokens(): void;
  /** A new "infinite" token, as generating one in SW's portal: the one before gets 401 from now on. Returns it. */
  regenerateToken(): string;
  /** Authentications and calls refused for their token, in order: `authenticated`, `refused AU2000`, `401 stamp`, `401 cancel`. */
  auth: { outcome: string }[];
  /** Answers for the next stamp calls, in order; afterwards the normal behaviour. */
  script(...answers: FakePacAnswer[]): void;
  /** The same for the next cancel calls. */
  scriptCancel(...answers: FakePacAnswer[]): void;
  /** Answers for the next stamp calls under one customid (an invoice's, in a batch sent at once), before those of `script`. */
  scriptFor(customId: string, ...answers: FakePacAnswer[]): void;
  /** Moves a stamped CFDI's FechaTimbrado `hours` back, so SAT's rule sees an older invoice (the receptor must then accept). */
  backdate(uuid: string, hours: number): void;
  /**
   * The receptor's answer to a cancellation `En proceso`: accept (Cancelado con aceptación), reject (stays
   * Vigente, Solicitud rechazada), or none within the 3 business days (Cancelado, Plazo vencido).
   */
  receiverAnswers(uuid: string, answer: ReceiverAnswer): void;
  /**
   * SAT learns of a CFDI some time after the PAC stamps it: until `reachesSat`, its status service answers
   * `N - 602: Comprobante no encontrado.` for this UUID (the cancellation itself still goes through).
   */
  notYetAtSat(uuid: string): void;
  reachesSat(uuid: string): void;
  /** Every expresionImpresa the status service received, as received (after the SOAP body's XML decoding). */
  statusExpressions: string[];
  register(taxpayer: RegisteredTaxpayer): void;
  /** Added before every answer (benchmarks model a real PAC's latency with it). */
  latencyMs: number;
  /**
   * Whether stamping checks the document first (SAT's XSD, seal, Anexo 20 amounts, the receptor). Off, it
   * stamps at once what it gets: the benchmark measures our side of stamping without the fake's checks,
   * which a real PAC runs on its own machines.
   */
  validates: boolean;
  /**
   * Each call and how it went: `stamped`, `previously stamped` (SW's 307), `customid stamped before` (CFDI3307), each
   * with `, no answer` or `, withheld` when scripted so; `CO1000`, `refused CFDI40145`, `cancel 201 En proceso`,
   * `cancel 202`, `cancel refused CA205` (the cause's code)... `uuid` upper-cased, as the service stores it (SW's own are lower case).
   */
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
const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** Mexico's main zone (UTC−6, no DST since 2022) stands for all here. */
const MEXICO_CITY_OFFSET_MS = -6 * HOUR_MS;
/** SW's Timbrado V4 (the one that takes `customid`), answer version v4. */
const STAMP_PATH = '/v4/cfdi33/stamp/v4';
/** SW keeps a customid 72 hours from its first use (developers.sw.com.mx, "Timbrado V4 – CustomID"). */
const CUSTOM_ID_LIFE_MS = 72 * 3600 * 1000;
const CUSTOM_ID_MAX = 100;
const PREVIOUS_STAMP_MESSAGE = '307. El comprobante contiene un timbre previo.';
const DUPLICATE_CUSTOM_ID_MESSAGE = 'CFDI3307 - Timbre duplicado. El customId proporcionado está duplicado.';
const CO1000_MESSAGE = 'CO1000 - Error No Controlado. Si el problema persiste, por favor contacte a soporte técnico para recibir ayuda al respecto.';
const CANCEL_PATH = '/cfdi33/cancel/csd';
const STATUS_PATH = '/ConsultaCFDIService.svc';
/** SW's authentication: v2 takes `{ user, password }` as JSON; the older path took them as headers. */
const AUTH_PATHS = ['/v2/security/authenticate', '/security/authenticate'];
const TWO_HOURS_MS = 2 * HOUR_MS;
/** c_MotivoCancelacion; 01 (errors, with a substitute) is the one that needs foliosustitucion. */
const MOTIVES = ['01', '02', '03', '04'];
/** Público en general and foreign receptors: nobody can accept, so SAT never asks. */
const GENERIC_RECEPTORS = ['XAXX010101000', 'XEXX010101000'];

export type ReceiverAnswer = 'accept' | 'reject' | 'no-answer';

const RECEIVER_OUTCOMES: Record<ReceiverAnswer, { state: StampedCfdi['state']; cancellationStatus: string }> = {
  accept: { state: 'Cancelado', cancellationStatus: 'Cancelado con aceptación' },
  reject: { state: 'Vigente', cancellationStatus: 'Solicitud rechazada' },
  // SAT cancels when the receptor lets the 3 business days pass without answering.
  'no-answer': { state: 'Cancelado', cancellationStatus: 'Plazo vencido' },
};

/** SAT's public test taxpayers and the receptors the tests use; other RFCs are not checked. */
const TAXPAYERS: RegisteredTaxpayer[] = [
  { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', zip: '42501', regimes: ['601'] },
  { rfc: 'CACX7605101P8', name: 'XOCHILT CASAS CHAVEZ', zip: '36257', regimes: ['612', '626'] },
  { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA', zip: '86991', regimes: ['601'] },
  { rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI', zip: '54700', regimes: ['603'] },
];

class Refusal extends Error {
  /** `fields`: for a cancellation, a problem with the request's fields rather than with the document (SW's two generic messages). */
  constructor(
    readonly code: string,
    message: string,
    readonly fields = false,
  ) {
    super(message);
  }
}

/**
 * SW's answer to a refused cancellation: HTTP 400, one generic `message` for every cause ("CACFDI33 - Problemas con
 * los campos." for the request's fields, "CACFDI33 - Problemas con el xml." otherwise) and the cause in
 * `messageDetail` (sw-sdk-dotnet's tests: "Son necesarios el .Cer y el .Key en formato B64" under "… con los
 * campos."; "CR1310. Clave de motivo de cancelación no válida" under "… con el xml."). The sources are silent on
 * the detail SW writes for each other cause: the fake writes SAT's cancellation codes (CA205 UUID no existe, CA203
 * …) as `CODE - text`.
 */
function cancelRefusalBody(code: string, message: string, fields: boolean): Record<string, unknown> {
  return {
    status: 'error',
    message: fields ? 'CACFDI33 - Problemas con los campos.' : 'CACFDI33 - Problemas con el xml.',
    messageDetail: code ? `${code} - ${message}` : message,
  };
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

function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
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
      const paths = await Promise.all(
        batch.map(async (check, i) => {
          const path = join(dir, `${i}.xml`);
          await writeFile(path, check.xml);
          return path;
        }),
      );
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

/** Fecha is wall-clock time at LugarExpedicion, read in Mexico City's zone. */
function fechaAgeMs(fecha: string, now: Date): number {
  return now.getTime() - new Date(`${fecha}-06:00`).getTime();
}

function mexicoCityNow(now: Date): string {
  return new Date(now.getTime() + MEXICO_CITY_OFFSET_MS).toISOString().slice(0, 19);
}

/** The end of the business day (Mon–Fri in Mexico City; holidays not modelled) after the one of `at`. */
function endOfNextBusinessDay(at: Date): Date {
  // Shifted by the offset, the UTC fields read Mexico City's wall clock.
  const local = new Date(at.getTime() + MEXICO_CITY_OFFSET_MS);
  const day = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 1));
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  return new Date(day.getTime() + DAY_MS - MEXICO_CITY_OFFSET_MS);
}

/**
 * RMF 2.7.1.35: when a cancellation takes effect at once instead of waiting for the receptor. Egresos,
 * traslados and nóminas; up to $1,000 MXN (except pagos); generic receptors; or asked by the end of the
 * next business day after stamping.
 */
function cancellableWithoutAcceptance(cfdi: StampedCfdi, now: Date): boolean {
  if (['E', 'T', 'N'].includes(cfdi.type)) return true;
  if (cfdi.type !== 'P' && cfdi.total.times(cfdi.exchangeRate).lte(1000)) return true;
  if (GENERIC_RECEPTORS.includes(cfdi.receptorRfc)) return true;
  return now.getTime() < endOfNextBusinessDay(cfdi.stampedAt).getTime();
}

function cancellableText(cfdi: StampedCfdi, now: Date): string {
  return cancellableWithoutAcceptance(cfdi, now) ? 'Cancelable sin aceptación' : 'Cancelable con aceptación';
}

/** SAT's acknowledgement of a cancellation request for one UUID. */
function acuse(uuid: string, cfdi: StampedCfdi, satCode: string, now: Date): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?><Acuse xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' +
    ` Fecha="${mexicoCityNow(now)}" RfcEmisor="${escapeAttribute(cfdi.issuerRfc)}"><Folios xmlns="http://cancelacfd.sat.gob.mx">` +
    `<UUID>${escapeAttribute(uuid)}</UUID><EstatusUUID>${satCode}</EstatusUUID><EstatusCancelacion>${escapeAttribute(cfdi.cancellationStatus)}</EstatusCancelacion></Folios></Acuse>`
  );
}

/** Whether `der` is a certificate of `rfc` whose key `keyDer` opens with `password`; SAT's test CSDs carry the RFC in the subject (x500UniqueIdentifier). */
function csdMatches(rfc: string, certificateDer: Buffer, keyDer: Buffer, password: string): boolean {
  try {
    const certificate = new X509Certificate(certificateDer);
    if (!certificate.subject.includes(rfc)) return false;
    const key = createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8', passphrase: password });
    const spki = { type: 'spki', format: 'der' } as const;
    return createPublicKey(key).export(spki).equals(certificate.publicKey.export(spki));
  } catch {
    return false;
  }
}

const EXPRESSION_URL = 'https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?';
const EXPRESSION_KEYS = ['id', 're', 'rr', 'tt', 'fe'];

/** The XML escapes an RFC is written with in the expression (`&amp;` for `&`, as @nodecfdi/cfdi-expresiones does). */
function unescapeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name]!);
}

/**
 * The CFDI 3.3/4.0 expression (Anexo 20's QR: `https://verificacfdi…/default.aspx?id=…&re=…&rr=…&tt=…&fe=…`), split
 * only before a known key (an RFC may hold `&`, written `&amp;`); undefined when it is not one, which SAT answers
 * `N - 601`. The sources are silent on whether SAT still reads the CFDI 3.2 form (`?re=&rr=&tt=&id=`) for a 4.0
 * CFDI, and on whether it compares `fe` with the seal: the fake reads only the form Anexo 20 gives for 4.0, wants
 * `fe` 8 characters long, and finds the CFDI by UUID, both RFCs and the total.
 */
function qrExpression(expression: string): Map<string, string> | undefined {
  if (!expression.startsWith(EXPRESSION_URL)) return undefined;
  const fields = new Map<string, string>();
  for (const part of expression.slice(EXPRESSION_URL.length).split(/&(?=(?:id|re|rr|tt|fe)=)/)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || fields.has(part.slice(0, eq))) return undefined;
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  if (fields.size !== EXPRESSION_KEYS.length || !EXPRESSION_KEYS.every((key) => fields.has(key))) return undefined;
  if (!/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/.test(fields.get('id')!) || fields.get('fe')!.length !== 8) return undefined;
  if (!/^\d{1,18}(\.\d{1,6})?$/.test(fields.get('tt')!)) return undefined;
  fields.set('re', unescapeXml(fields.get('re')!));
  fields.set('rr', unescapeXml(fields.get('rr')!));
  return fields;
}

/** `tt` is the Total as the QR writes it (zero-padded, six decimals), so amounts compare as numbers. */
function sameAmount(text: string | undefined, amount: Decimal): boolean {
  try {
    return new Decimal(text ?? '').eq(amount);
  } catch {
    return false;
  }
}

function soapStatus(res: ServerResponse, fields: { CodigoEstatus: string; EsCancelable?: string; Estado?: string; EstatusCancelacion?: string }): void {
  const field = (name: keyof typeof fields) => {
    const value = fields[name];
    // SAT writes an unknown value as i:nil, an empty one as an empty element.
    return value === undefined ? `<a:${name} i:nil="true"/>` : value === '' ? `<a:${name}/>` : `<a:${name}>${escapeAttribute(value)}</a:${name}>`;
  };
  res
    .writeHead(200, { 'content-type': 'text/xml; charset=utf-8' })
    .end(
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' +
        '<ConsultaResponse xmlns="http://tempuri.org/"><ConsultaResult xmlns:a="http://schemas.datacontract.org/2004/07/Sat.Cfdi.Negocio.ConsultaCfdi.Servicio" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">' +
        `${field('CodigoEstatus')}${field('EsCancelable')}${field('Estado')}${field('EstatusCancelacion')}<a:ValidacionEFOS>200</a:ValidacionEFOS>` +
        '</ConsultaResult></ConsultaResponse></s:Body></s:Envelope>',
    );
}

function checkReceptor(comprobante: XmlElement, taxpayers: Map<string, RegisteredTaxpayer>): void {
  const receptor = child(comprobante, 'cfdi:Receptor');
  const known = taxpayers.get(attribute(receptor ?? comprobante, 'Rfc') ?? '');
  if (!receptor || !known) return;
  if (attribute(receptor, 'Nombre') !== known.name)
    throw new Refusal('CFDI40145', 'El campo Nombre del receptor, debe pertenecer al nombre asociado al RFC registrado en el campo Rfc del Receptor.');
  if (attribute(receptor, 'DomicilioFiscalReceptor') !== known.zip)
    throw new Refusal('CFDI40147', 'El campo DomicilioFiscalReceptor del receptor, debe pertenecer al nombre asociado al RFC registrado en el campo Rfc del Receptor.');
  if (!known.regimes.includes(attribute(receptor, 'RegimenFiscalReceptor') ?? ''))
    throw new Refusal('CFDI40158', 'La clave del campo RegimenFiscalR debe corresponder con el régimen del RFC receptor registrado en el SAT.');
}

/** A token shaped as SW's, a JWT ("El token debe contener 3 partes" when it is not); nothing reads its parts. */
function newToken(kind: string): string {
  const part = (value: string) => Buffer.from(value).toString('base64url');
  return `${part('{"alg":"HS256","typ":"JWT"}')}.${part(JSON.stringify({ kind, jti: randomUUID() }))}.${part(randomUUID())}`;
}

/**
 * SW's 401 for a token it does not take. Recorded in the SDKs' tests: an empty one ("AU4101 - El token
 * proporcionado viene vacio."), one not of three parts ("El token debe contener 3 partes"), an invalid one
 * ("AU4000 - No fue posible validar el token."); a wrong token on cancel is HTTP 401 (the Java SDK's test).
 * The sources are silent on an expired or regenerated token's message: it gets the invalid one's.
 */
function tokenRefusal(authorization: string | undefined): string {
  const token = /^Bearer\s+(.*)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
  if (!token) return 'AU4101 - El token proporcionado viene vacio.';
  if (token.split('.').length !== 3) return 'El token debe contener 3 partes';
  return 'AU4000 - No fue posible validar el token.';
}

/** `journalFile`: where stamps are kept across restarts (fakes/pac-journal.ts); none: memory only. */
export async function startFakePacServer(
  options: { port?: number; latencyMs?: number; journalFile?: string; credentials?: { user: string; password: string }; tokenLifetimeMs?: number } = {},
): Promise<FakePacServer> {
  const certificate = readFileSync(new URL('CSD01_AAA010101AAA.cer', CERT_DIR));
  const signer: CsdSigner = csdSigner(certificate, readFileSync(new URL('CSD01_AAA010101AAA.key', CERT_DIR)), '12345678a');
  /** Session tokens and when each expires (epoch ms). */
  const sessions = new Map<string, number>();
  const auth: FakePacServer['auth'] = [];
  const taxpayers = new Map(TAXPAYERS.map((t) => [t.rfc, t]));
  const scripts: FakePacAnswer[] = [];
  const cancelScripts: FakePacAnswer[] = [];
  const customIdScripts = new Map<string, FakePacAnswer[]>();
  const journal = openPacJournal(options.journalFile);
  const notYetAtSat = new Set<string>();
  const statusExpressions: string[] = [];
  const { stamped, cfdis } = journal;
  const calls: FakePacServer['calls'] = [];
  const turns = new Map<string, Promise<void>>();
  /**
   * Stamps by customid: keyed by issuer RFC and customid (SW's docs do not say whether per RFC or per account;
   * ours are invoice ids, unique either way), registered when a stamp is made under it (the docs do not say
   * whether a refused call uses one up), forgotten 72 hours after. Memory only: not in the journal.
   */
  const customIds = new Map<string, { key: string; at: Date }>();
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

  /** `previous`: why the stamp is an earlier one (the same document, or the same customid), or false for a new stamp. */
  function stamp(xml: string, now: Date, customId: string | undefined): { data: Record<string, string>; previous: false | 'document' | 'customid' } {
    let comprobante: XmlElement;
    try {
      comprobante = parseXml(xml);
    } catch (err) {
      throw new Refusal('301', `XML mal formado: ${err instanceof XmlParseError ? err.message : 'unreadable'}`);
    }
    const seal = attribute(comprobante, 'Sello') ?? '';
    const key = sealKey(seal);
    const earlier = stamped.get(key);
    if (earlier) return { data: earlier, previous: 'document' };
    const customKey = customId === undefined ? undefined : `${attribute(child(comprobante, 'cfdi:Emisor') ?? comprobante, 'Rfc') ?? ''}\n${customId}`;
    const underCustomId = customKey === undefined ? undefined : customIds.get(customKey);
    if (underCustomId && now.getTime() - underCustomId.at.getTime() < CUSTOM_ID_LIFE_MS) return { data: stamped.get(underCustomId.key)!, previous: 'customid' };
    if (fake.validates) {
      if (!verifyCfdiSeal(comprobante)) throw new Refusal('CFDI40102', 'El resultado de la digestión debe ser igual al resultado de desencriptar el sello.');
      const age = fechaAgeMs(attribute(comprobante, 'Fecha') ?? '', now);
      if (!(age <= SEVENTY_TWO_HOURS_MS)) throw new Refusal('401', 'El rango de la fecha de generación no debe de ser mayor a 72 horas para la emisión del timbre.');
      const finding = checkCfdiAmounts(comprobante)[0];
      if (finding) throw new Refusal(finding.satCode, finding.message);
      checkReceptor(comprobante, taxpayers);
    }

    // SW writes UUIDs in lower case (data.uuid and the TFD); SAT's own samples use upper case.
    const uuid = randomUUID();
    const tfd = element('tfd:TimbreFiscalDigital', {
      'xmlns:tfd': TFD_NS,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': TFD_SCHEMA,
      Version: '1.1',
      UUID: uuid,
      FechaTimbrado: mexicoCityNow(now),
      RfcProvCertif: PAC_RFC,
      SelloCFD: seal,
      NoCertificadoSAT: signer.certificateNumber,
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
      cfdi: serializeXml(comprobante),
      cadenaOriginalSAT: tfdCadena,
      noCertificadoSAT: signer.certificateNumber,
      noCertificadoCFDI: attribute(comprobante, 'NoCertificado') ?? '',
      uuid,
      selloSAT: attribute(tfd, 'SelloSAT') ?? '',
      selloCFDI: seal,
      fechaTimbrado: attribute(tfd, 'FechaTimbrado') ?? '',
    };
    stamped.set(key, data);
    if (customKey !== undefined) customIds.set(customKey, { key, at: now });
    cfdis.set(uuid.toUpperCase(), {
      issuerRfc: attribute(child(comprobante, 'cfdi:Emisor') ?? comprobante, 'Rfc') ?? '',
      receptorRfc: attribute(child(comprobante, 'cfdi:Receptor') ?? comprobante, 'Rfc') ?? '',
      total: new Decimal(attribute(comprobante, 'Total') ?? '0'),
      exchangeRate: new Decimal(attribute(comprobante, 'TipoCambio') ?? '1'),
      type: attribute(comprobante, 'TipoDeComprobante') ?? '',
      stampedAt: now,
      state: 'Vigente',
      cancellationStatus: '',
    });
    journal.recordStamp(key, data, uuid.toUpperCase());
    return { data, previous: false };
  }

  function stampedCfdi(uuid: string): StampedCfdi {
    const cfdi = cfdis.get(uuid.toUpperCase());
    if (!cfdi) throw new Error(`fake PAC: no CFDI stamped with UUID ${uuid}`);
    return cfdi;
  }

  /** SW's cancel by CSD: the request's checks, then SAT's rule decides between at once and the receptor's acceptance. */
  function cancel(body: Buffer, now: Date): { uuid: string; cfdi: StampedCfdi; satCode: string } {
    const request = jsonObject(body);
    if (!request) throw new Refusal('300', 'La petición no es un JSON válido.', true);
    const text = (name: string) => {
      const value = request[name];
      return typeof value === 'string' ? value : '';
    };
    // sw-sdk-dotnet's Cancelation_Test_ValidateParameters: SW's own words, with no code.
    if (!text('b64Cer') || !text('b64Key')) throw new Refusal('', 'Son necesarios el .Cer y el .Key en formato B64', true);
    const uuid = text('uuid').toUpperCase();
    const cfdi = cfdis.get(uuid);
    if (!cfdi) throw new Refusal('CA205', 'UUID no existe');
    if (text('rfc') !== cfdi.issuerRfc) throw new Refusal('CA203', 'UUID no corresponde al emisor');
    const motive = text('motivo');
    if (!MOTIVES.includes(motive)) throw new Refusal('CA301', 'Motivo de cancelación no válido: debe ser 01, 02, 03 o 04');
    const substitute = text('foliosustitucion');
    if (motive === '01' && !cfdis.has(substitute.toUpperCase())) throw new Refusal('CA302', 'El motivo 01 requiere el folio fiscal de un comprobante que sustituya al cancelado');
    if (motive !== '01' && substitute) throw new Refusal('CA302', 'El folio de sustitución solo se admite con el motivo 01');
    if (!csdMatches(cfdi.issuerRfc, Buffer.from(text('b64Cer'), 'base64'), Buffer.from(text('b64Key'), 'base64'), text('password'))) {
      throw new Refusal('CA300', 'El certificado no pertenece al emisor, o la llave privada o su contraseña no corresponden al certificado');
    }
    if (cfdi.state === 'Cancelado') return { uuid, cfdi, satCode: '202' };
    // A request already waiting for the receptor is acknowledged again, unchanged.
    if (cfdi.cancellationStatus !== 'En proceso') {
      const atOnce = cancellableWithoutAcceptance(cfdi, now);
      cfdi.cancellable = cancellableText(cfdi, now);
      cfdi.state = atOnce ? 'Cancelado' : 'Vigente';
      cfdi.cancellationStatus = atOnce ? 'Cancelado sin aceptación' : 'En proceso';
      journal.recordCfdi(uuid);
    }
    return { uuid, cfdi, satCode: '201' };
  }

  function cancelAnswer(body: Buffer, lost: boolean, json: (status: number, payload: unknown) => void): void {
    try {
      const now = new Date();
      const { uuid, cfdi, satCode } = cancel(body, now);
      calls.push({ uuid, outcome: `cancel ${satCode === '201' ? `201 ${cfdi.cancellationStatus}` : satCode}${lost ? ', no answer' : ''}` });
      if (lost) return;
      json(200, { status: 'success', data: { acuse: acuse(uuid, cfdi, satCode, now), uuid: { [uuid]: satCode } } });
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      calls.push({ outcome: `cancel refused ${err.code || 'fields'}` });
      json(400, cancelRefusalBody(err.code, err.message, err.fields));
    }
  }

  /**
   * SAT's ConsultaCFDIService: a CFDI is found by its UUID, both RFCs and its total (compared as numbers). CodigoEstatus
   * as phpcfdi/sat-estado-cfdi documents it: `S - Comprobante obtenido satisfactoriamente.`, `N - 601: La expresión
   * impresa proporcionada no es válida.`, `N - 602: Comprobante no encontrado.`.
   */
  function statusAnswer(body: Buffer, res: ServerResponse): void {
    const expression = textsByLocalName(body.toString('utf8'), ['expresionImpresa'])?.get('expresionImpresa');
    if (expression === undefined) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request');
    statusExpressions.push(expression);
    const fields = qrExpression(expression);
    // The sources show no other field of a 601 answer: the fake leaves them nil.
    if (!fields) return soapStatus(res, { CodigoEstatus: 'N - 601: La expresión impresa proporcionada no es válida.' });
    const uuid = (fields.get('id') ?? '').toUpperCase();
    const cfdi = notYetAtSat.has(uuid) ? undefined : cfdis.get(uuid);
    if (!cfdi || fields.get('re') !== cfdi.issuerRfc || fields.get('rr') !== cfdi.receptorRfc || !sameAmount(fields.get('tt'), cfdi.total)) {
      return soapStatus(res, { CodigoEstatus: 'N - 602: Comprobante no encontrado.', Estado: 'No Encontrado' });
    }
    soapStatus(res, {
      CodigoEstatus: 'S - Comprobante obtenido satisfactoriamente.',
      EsCancelable: cfdi.cancellable ?? cancellableText(cfdi, new Date()),
      Estado: cfdi.state,
      EstatusCancelacion: cfdi.cancellationStatus,
    });
  }

  /**
   * SW's authentication. Answer recorded by the SDKs: `{ status: "success", data: { token, expires_in } }`; the
   * Java SDK reads `expires_in` as the expiry's Unix time in seconds, which is what this sends (the others ignore
   * it). A wrong user or password: `AU2000`, status below 500 (400 per the Go SDK's test); its messageDetail
   * is not recorded.
   */
  function authenticate(route: string, body: Buffer, req: IncomingMessage, json: (status: number, payload: unknown) => void): void {
    const given = route === AUTH_PATHS[0] ? jsonObject(body) : { user: req.headers.user, password: req.headers.password };
    if (given?.user !== fake.credentials.user || given?.password !== fake.credentials.password) {
      auth.push({ outcome: 'refused AU2000' });
      return json(400, { status: 'error', message: 'AU2000 - El usuario y/o contraseña son inválidos, no se puede autenticar el servicio.', messageDetail: '' });
    }
    const issued = newToken('session');
    const expiresAt = Date.now() + fake.tokenLifetimeMs;
    sessions.set(issued, expiresAt);
    auth.push({ outcome: 'authenticated' });
    json(200, { status: 'success', data: { token: issued, expires_in: Math.floor(expiresAt / 1000) } });
  }

  /** The account's "infinite" token, or a session token not yet expired. */
  function tokenTaken(authorization: string | undefined): boolean {
    const token = /^Bearer\s+(.*)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
    if (token === fake.token) return true;
    const expiresAt = sessions.get(token);
    return expiresAt !== undefined && Date.now() < expiresAt;
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const json = (status: number, payload: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      const route = req.method === 'POST' ? req.url : undefined;
      if (route !== undefined && AUTH_PATHS.includes(route)) return authenticate(route, body, req, json);
      if (route !== STAMP_PATH && route !== CANCEL_PATH && route !== STATUS_PATH) return json(404, { status: 'error', message: 'not found' });
      // SAT's status service is public; SW's API wants a token it takes.
      if (route !== STATUS_PATH && !tokenTaken(req.headers.authorization)) {
        auth.push({ outcome: `401 ${route === STAMP_PATH ? 'stamp' : 'cancel'}` });
        return json(401, { status: 'error', message: tokenRefusal(req.headers.authorization), messageDetail: null });
      }
      if (fake.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.latencyMs));
      if (route === STATUS_PATH) return statusAnswer(body, res);
      const cancelling = route === CANCEL_PATH;
      const prefix = cancelling ? 'cancel ' : '';
      const ownScripted = cancelling || typeof req.headers.customid !== 'string' ? undefined : customIdScripts.get(req.headers.customid)?.shift();
      const scripted = ownScripted ?? (cancelling ? cancelScripts : scripts).shift();
      switch (scripted?.kind) {
        case 'status':
          calls.push({ outcome: `${prefix}status ${scripted.status}` });
          if (scripted.retryAfter !== undefined) res.setHeader('Retry-After', scripted.retryAfter);
          return json(scripted.status, { status: 'error', message: 'scripted' });
        case 'garbage':
          calls.push({ outcome: `${prefix}garbage` });
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
        case 'hang':
          calls.push({ outcome: `${prefix}hang` });
          return;
        case 'refuse':
          calls.push({ outcome: `${prefix}refused ${scripted.code}` });
          if (cancelling) return json(400, cancelRefusalBody(scripted.code, scripted.message, false));
          return json(400, { status: 'error', message: `${scripted.code} - ${scripted.message}`, messageDetail: null });
        case 'co1000':
          calls.push({ outcome: `${prefix}CO1000` });
          // SW's error list gives the code and text, not the HTTP status: 400, its error envelope's usual one.
          return json(400, { status: 'error', message: CO1000_MESSAGE, messageDetail: null, data: null });
        case 'held':
          await scripted.until;
          break;
        default:
      }
      if (cancelling) return cancelAnswer(body, scripted?.kind === 'stamp-and-hang', json);
      const xml = xmlFromMultipart(body, req.headers['content-type'] ?? '');
      if (!xml) return json(400, { status: 'error', message: '300 - No se encontró el XML en la petición.', messageDetail: null });
      const customIdHeader = req.headers.customid;
      const customId = typeof customIdHeader === 'string' ? customIdHeader : undefined;
      // The SDKs refuse these before sending, with these texts; what SW's server answers is not in the sources.
      if (customId !== undefined && customId.length > CUSTOM_ID_MAX)
        return json(400, { status: 'error', message: 'El CustomId no es válido o es mayor a 100 caracteres.', messageDetail: null });
      const key = documentKey(xml);
      // One customid's documents in turn too: a retry and a re-sealed document of one invoice never race to two stamps.
      await inTurn(customId === undefined ? key : `customid:${customId}`, async () => {
        // xmldom lets through characters XML 1.0 forbids; SAT's parser (and every PAC's, xmllint's) does not.
        const bad = firstNonXmlChar(xml);
        if (bad) {
          calls.push({ outcome: 'refused 301' });
          const problem = `PCDATA invalid Char value ${bad.codePoint} (${codePointName(bad.codePoint)} at index ${bad.index})`;
          return void json(400, { status: 'error', message: `301 - XML mal formado: ${problem}`, messageDetail: problem });
        }
        // A document stamped before gets its stamp back (SW's 307); its schema was checked the first time.
        const invalid = !fake.validates || (key !== undefined && stamped.has(key)) ? undefined : await xsdErrors(xml);
        if (invalid) {
          calls.push({ outcome: 'refused XSD' });
          return void json(400, { status: 'error', message: `CFDI40101 - El XML no cumple con el esquema: ${invalid}`, messageDetail: invalid });
        }
        try {
          const { data, previous } = stamp(xml, new Date(), customId);
          const outcome = previous === 'document' ? 'previously stamped' : previous === 'customid' ? 'customid stamped before' : 'stamped';
          const lost = scripted?.kind === 'stamp-and-hang' ? ', no answer' : scripted?.kind === 'withheld' ? ', withheld' : '';
          // The log's UUIDs are upper-cased, as the service stores them, so tests compare them with the rows.
          calls.push({ uuid: data.uuid?.toUpperCase(), outcome: `${outcome}${lost}` });
          if (scripted?.kind === 'stamp-and-hang') return;
          if (scripted?.kind === 'withheld')
            return void json(400, { status: 'error', message: PREVIOUS_STAMP_MESSAGE, messageDetail: 'No se pudo obtener la URL de descarga.', data: null });
          if (previous === 'document') return void json(400, { status: 'error', message: PREVIOUS_STAMP_MESSAGE, messageDetail: null, data });
          if (previous === 'customid') return void json(400, { status: 'error', message: DUPLICATE_CUSTOM_ID_MESSAGE, messageDetail: null, data });
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
    token: newToken('infinite'),
    credentials: options.credentials ?? { user: 'fake-pac-user', password: `fake-pac-password-${randomUUID()}` },
    tokenLifetimeMs: options.tokenLifetimeMs ?? TWO_HOURS_MS,
    expireTokens: () => {
      for (const issued of sessions.keys()) sessions.set(issued, 0);
    },
    regenerateToken: () => (fake.token = newToken('infinite')),
    auth,
    latencyMs: options.latencyMs ?? 0,
    validates: true,
    script: (...answers) => void scripts.push(...answers),
    scriptCancel: (...answers) => void cancelScripts.push(...answers),
    scriptFor: (customId, ...answers) => void customIdScripts.set(customId, [...(customIdScripts.get(customId) ?? []), ...answers]),
    backdate: (uuid, hours) => {
      const cfdi = stampedCfdi(uuid);
      cfdi.stampedAt = new Date(cfdi.stampedAt.getTime() - hours * HOUR_MS);
      journal.recordCfdi(uuid.toUpperCase());
    },
    receiverAnswers: (uuid, answer) => {
      const cfdi = stampedCfdi(uuid);
      if (cfdi.cancellationStatus !== 'En proceso') throw new Error(`fake PAC: ${uuid} is not waiting for the receptor (${cfdi.cancellationStatus || 'no cancellation asked'})`);
      Object.assign(cfdi, RECEIVER_OUTCOMES[answer]);
      journal.recordCfdi(uuid.toUpperCase());
    },
    notYetAtSat: (uuid) => void notYetAtSat.add(uuid.toUpperCase()),
    reachesSat: (uuid) => void notYetAtSat.delete(uuid.toUpperCase()),
    statusExpressions,
    register: (taxpayer) => void taxpayers.set(taxpayer.rfc, taxpayer),
    calls,
    certificate,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
