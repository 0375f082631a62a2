/**
 * PacClient speaking SW Sapien's ("SmarterWeb") public REST API (developers.sw.com.mx) and SAT's public
 * CFDI status service. The fake PAC (fakes/pac-server.ts) speaks the same formats.
 *
 * Stamp, SW's "Timbrado V4": POST {base}/v4/cfdi33/stamp/v4 (the path's last v4 is the answer's version)
 * with `Authorization: Bearer <token>`, the sealed XML as the multipart field `xml`, and the header
 * `customid` (SW's SDKs send it only to the /v4/ paths; lunasoft/sw-sdk-nodejs RequestHelper._buildPath).
 *   200 { status: "success", data: { cfdi, uuid, fechaTimbrado, noCertificadoSAT, ... } }
 *   400 { status: "error", message: "CFDI40145 - <text>", messageDetail }
 * What SW answers, from its SDKs' tests and its docs:
 * - A document stamped before: "307. El comprobante contiene un timbre previo." with the earlier stamp in
 *   `data`, on HTTP 400: the Java SDK reads a 307's `data` only from a non-200 answer below 500
 *   (BuildResponseV4), Python's reads `message` only from a non-200 one (StampResponse), and .NET reads a body
 *   only on 200, 400 or 401 (ResponseHandler.TryGetResponse) while its tests assert the 307's `data.cfdi`.
 * - The same `customid` with another document: "CFDI3307 - Timbre duplicado. El customId proporcionado está
 *   duplicado." with the stamp made under that customid in `data` (sw-sdk-dotnet's StampV4XML_test,
 *   SW-sdk-NetStandard's IssueV4StorageTest); the same customid with the same document is a plain 307
 *   (developers.sw.com.mx, "Servicio de timbrado customID"). Right after the first stamp SW may not have
 *   that XML in its storage yet: CFDI3307 with `data.tfd` but an empty `data.cfdi` and messageDetail "No se pudo
 *   obtener la URL de descarga." (the same tests): the stamp exists but is withheld, so the call is retried
 *   (PacStampWithheld), and a job that gets it on its last attempt names it (workers/stamp-invoice.ts).
 *   A customid is at most 100 characters with no format rule, kept 72 hours from its first use
 *   (developers.sw.com.mx, "Timbrado V4 – CustomID"); SW's docs do not say whether it is keyed per account or
 *   per issuer RFC (the fake keys it per RFC), nor what a call that failed before stamping leaves behind.
 * - "CO1000 - Error No Controlado. Si el problema persiste, por favor contacte a soporte técnico…" (SW's
 *   error list): an internal failure, not a verdict on the document: retried (PacUnavailable). SW's sources
 *   do not say which HTTP status carries it; it is read by its code on any status.
 * - SW writes UUIDs in lower case, in `data.uuid` and in the TFD (the SDKs' recorded SW-stamped CFDIs, e.g.
 *   sw-sdk-java's CFDI40_Ingreso_Timbrado.xml); the service stores and compares them upper-cased and keeps the
 *   XML as SW returned it.
 *
 * Cancel by CSD: POST {base}/cfdi33/cancel/csd, same token, JSON { uuid, password, rfc, motivo,
 * foliosustitucion, b64Cer, b64Key }.
 *   200 { status: "success", data: { acuse: "<xml>", uuid: { "<UUID>": "201" } } }
 *   400 { status: "error", message: "CACFDI33 - Problemas con los campos." | "CACFDI33 - Problemas con el xml.",
 *         messageDetail: "<the cause, often with its code: CR1310. Clave de motivo de cancelación no válida>" }
 * (SW's SDK tests: sw-sdk-dotnet's Cancelation and CancelationRetention tests, sw-sdk-php's, sw-sdk-java's.) The
 * message is the same for every cause: the refusal keeps messageDetail (PacRefused.detail).
 *
 * Status: SAT's ConsultaCFDIService (SOAP 1.1, no credentials), asked with the CFDI 4.0 expression of the QR.
 *
 * The token (sw-token.ts): the portal's, or one the client gets with a user and password and renews before it
 * expires. A token SW does not take is HTTP 401 with SW's envelope (the Java SDK's tests: a wrong token on
 * cancel is 401; the SDKs' tests record "AU4000 - No fue posible validar el token.", "El token debe contener 3
 * partes", "AU4101 - El token proporcionado viene vacio."). A 401/403 gets one renewal and one more try (SW
 * checks the token before the document: nothing was done), then is PacCredentialsRejected.
 */
import { verificationExpression } from '../../domain/cfdi/verification-expression.js';
import {
  PacCredentialsRejected,
  PacRefused,
  PacStampWithheld,
  PacThrottled,
  PacUnavailable,
  type PacCancelAnswer,
  type PacClient,
  type PacStamp,
  type SatQueryResult,
} from './pac-client.js';
import { swReason, swTokens, type SwCredentials } from './sw-token.js';
import { textsByLocalName } from './xml-texts.js';

interface SwStampData {
  cfdi?: unknown;
  uuid?: unknown;
  fechaTimbrado?: unknown;
  noCertificadoSAT?: unknown;
}

interface SwCancelData {
  acuse?: unknown;
  uuid?: unknown;
}

interface SwAnswer<Data> {
  status?: unknown;
  message?: unknown;
  messageDetail?: unknown;
  data?: Data | null;
}

/** SW's codes for "stamped before": this document (307), or another document under this customid (CFDI3307). */
const PREVIOUS_STAMP = /^(?:307|CFDI3307)\b/;
/** SW's codes for its own failures, whatever the document: worth another try (CO1000: "Error No Controlado"). */
const TRANSIENT = /^CO1000\b/;
const SOAP_ACTION = '"http://tempuri.org/IConsultaCFDIService/Consulta"';

function stampFrom(data: SwStampData | null | undefined, previouslyStamped: boolean, message: string): PacStamp {
  if (
    !data ||
    typeof data.cfdi !== 'string' ||
    !data.cfdi ||
    typeof data.uuid !== 'string' ||
    typeof data.fechaTimbrado !== 'string' ||
    typeof data.noCertificadoSAT !== 'string'
  ) {
    if (previouslyStamped) throw new PacStampWithheld(`the PAC answered "${message.slice(0, 200)}" without the earlier stamp`);
    throw new PacUnavailable('the PAC answered success without a complete stamp');
  }
  return { uuid: data.uuid.toUpperCase(), xml: data.cfdi, stampedAt: data.fechaTimbrado, satCertificateNumber: data.noCertificadoSAT, previouslyStamped };
}

/** The acuse and SAT's code for `uuid` (SW keys the codes by UUID, in whatever case). */
function cancelAnswerFrom(data: SwCancelData | null | undefined, uuid: string): PacCancelAnswer {
  const codes = data && typeof data.uuid === 'object' && data.uuid !== null ? Object.entries(data.uuid as Record<string, unknown>) : [];
  const satCode = codes.find(([key]) => key.toUpperCase() === uuid.toUpperCase())?.[1];
  if (!data || typeof data.acuse !== 'string' || !data.acuse || typeof satCode !== 'string') {
    throw new PacUnavailable('the PAC answered success without an acuse for the UUID');
  }
  return { acuse: data.acuse, satCode };
}

/** A 401/403: SW did not take the token (for SAT's status service, which takes none, just unavailable). */
class CredentialsRefused extends PacUnavailable {
  constructor(
    service: string,
    readonly reason: string,
  ) {
    super(`${service} answered ${reason.split(':')[0]}`);
  }
}

/**
 * One HTTP call with a deadline. Whatever is not an answer of the service itself (no answer in time, no
 * connection, 5xx) is PacUnavailable, to be retried; a 429 is PacThrottled (its Retry-After kept); a 401/403 is CredentialsRefused; the caller reads the rest.
 * Messages name the service and the HTTP status only: request bodies carry the CSD and its password.
 */
async function send(service: string, url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; text: string }> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
    text = await res.text();
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new PacUnavailable(timedOut ? `no answer from ${service} within ${timeoutMs} ms` : `${service} unreachable: ${(err as Error).message}`);
  }
  if (res.status === 401 || res.status === 403) throw new CredentialsRefused(service, swReason(res.status, text));
  if (res.status === 429) throw new PacThrottled(`${service} answered 429`, retryAfterMs(res.headers.get('retry-after')));
  if (res.status >= 500) throw new PacUnavailable(`${service} answered ${res.status}`);
  return { status: res.status, text };
}

/** A Retry-After header (delta-seconds or an HTTP date) in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

interface SwCall<Data> {
  httpStatus: number;
  answer: SwAnswer<Data>;
  message: string;
  /** status "success" with HTTP 200: `answer.data` is the result. */
  ok: boolean;
}

/** SW's JSON answer to one call; what is not JSON is PacUnavailable. */
async function callSw<Data>(url: string, init: RequestInit, timeoutMs: number): Promise<SwCall<Data>> {
  const { status: httpStatus, text } = await send('the PAC', url, init, timeoutMs);
  let answer: SwAnswer<Data>;
  try {
    answer = JSON.parse(text) as SwAnswer<Data>;
  } catch {
    throw new PacUnavailable(`unreadable answer from the PAC (HTTP ${httpStatus}, not JSON)`);
  }
  if (typeof answer !== 'object' || answer === null) throw new PacUnavailable('unreadable answer from the PAC');
  const message = typeof answer.message === 'string' ? answer.message : '';
  return { httpStatus, answer, message, ok: answer.status === 'success' && httpStatus === 200 };
}

/** A call that did not succeed: an "error" with HTTP 400 is the PAC's final refusal (`CODE - text`); anything else is temporary. */
function failure(call: SwCall<unknown>): never {
  if (TRANSIENT.test(call.message)) throw new PacUnavailable(`the PAC answered ${call.message.slice(0, 200)} (HTTP ${call.httpStatus})`);
  if (call.answer.status === 'error' && call.httpStatus === 400) {
    const [, code = 'PAC', text = call.message] = /^([A-Z0-9]+)\s*[-.]\s*(.*)$/s.exec(call.message) ?? [];
    const detail = typeof call.answer.messageDetail === 'string' && call.answer.messageDetail.trim() ? call.answer.messageDetail.trim() : undefined;
    throw new PacRefused(code, text.trim() || call.message, detail);
  }
  throw new PacUnavailable(`unexpected answer from the PAC (HTTP ${call.httpStatus})`);
}

/** CodigoEstatus as phpcfdi/sat-estado-cfdi reads it: `S - …` found; `N - 601…` an expression SAT could not read; any other `N - …` not found. */
function queryResult(code: string): SatQueryResult {
  if (code.startsWith('S - ')) return 'found';
  return /^N - 601\b/.test(code) ? 'invalid_expression' : 'not_found';
}

/** CDATA ends at the first `]]>`, so one inside a value is split over two sections. */
function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/**
 * `credentials`: a string is the portal's token. `nowMs`: the clock a session token's renewal is timed by.
 */
export function swPacClient(baseUrl: string, credentials: string | SwCredentials, timeoutMs: number, statusUrl: string, nowMs?: () => number): PacClient {
  const tokens = swTokens(baseUrl, typeof credentials === 'string' ? { token: credentials } : credentials, timeoutMs, nowMs);
  const headers = (token: string, more: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, accept: 'application/json', ...more });

  /** A call to SW with the current token; refused, once more with a renewed one. */
  async function authorized<Data>(url: string, init: (token: string) => RequestInit): Promise<SwCall<Data>> {
    const token = await tokens.current();
    try {
      return await callSw<Data>(url, init(token), timeoutMs);
    } catch (err) {
      if (!(err instanceof CredentialsRefused)) throw err;
      const renewed = await tokens.renewAfterRejection(token, err.reason);
      try {
        return await callSw<Data>(url, init(renewed), timeoutMs);
      } catch (again) {
        if (again instanceof CredentialsRefused) throw new PacCredentialsRejected('token rejected', `the PAC refused a token just renewed (${again.reason})`);
        throw again;
      }
    }
  }

  return {
    async stamp(sealedXml, options = {}) {
      const form = new FormData();
      form.append('xml', new Blob([sealedXml], { type: 'application/xml' }), 'cfdi.xml');
      const call = await authorized<SwStampData>(`${baseUrl}/v4/cfdi33/stamp/v4`, (token) => ({
        body: form,
        headers: headers(token, options.customId === undefined ? {} : { customid: options.customId }),
      }));
      if (call.ok) return stampFrom(call.answer.data, false, call.message);
      // On HTTP 400 from SW; read on whatever status reaches here, as what it says decides.
      if (call.answer.status === 'error' && PREVIOUS_STAMP.test(call.message)) return stampFrom(call.answer.data, true, call.message);
      return failure(call);
    },

    async cancel(request) {
      const body = JSON.stringify({
        uuid: request.uuid,
        password: request.password,
        rfc: request.issuerRfc,
        motivo: request.motive,
        foliosustitucion: request.substitutionUuid ?? '',
        b64Cer: request.certificateDer.toString('base64'),
        b64Key: request.privateKeyDer.toString('base64'),
      });
      const call = await authorized<SwCancelData>(`${baseUrl}/cfdi33/cancel/csd`, (token) => ({ body, headers: headers(token, { 'content-type': 'application/json' }) }));
      if (call.ok) return cancelAnswerFrom(call.answer.data, request.uuid);
      return failure(call);
    },

    async status(asked) {
      // The QR's own expression (no percent-encoding): an RFC's & goes as &amp;, its Ñ as it is.
      const expression = verificationExpression(asked);
      const envelope =
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tem="http://tempuri.org/"><soapenv:Header/>' +
        `<soapenv:Body><tem:Consulta><tem:expresionImpresa>${cdata(expression)}</tem:expresionImpresa></tem:Consulta></soapenv:Body></soapenv:Envelope>`;
      const service = "SAT's status service";
      const { status, text } = await send(
        service,
        statusUrl,
        {
          body: envelope,
          headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: SOAP_ACTION },
        },
        timeoutMs,
      );
      const texts = textsByLocalName(text, ['CodigoEstatus', 'Estado', 'EsCancelable', 'EstatusCancelacion']);
      const code = texts?.get('CodigoEstatus') ?? '';
      const state = texts?.get('Estado') ?? '';
      // An answer is SAT's when it says how the query went; one that found the CFDI also says its Estado.
      const query = /^[SN] - /.test(code) ? queryResult(code) : undefined;
      if (status !== 200 || !query || (query === 'found' && !state)) {
        throw new PacUnavailable(`unreadable answer from ${service} (HTTP ${status}${texts ? ', no CodigoEstatus or Estado' : ', not XML'})`);
      }
      return { query, code, state, cancellable: texts?.get('EsCancelable') ?? '', cancellationStatus: texts?.get('EstatusCancelacion') ?? '' };
    },
  };
}
