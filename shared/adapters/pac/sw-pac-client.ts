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
 *   400 { status: "error", message: "CA205 - <text>" }
 *
 * Status: SAT's ConsultaCFDIService (SOAP 1.1, no credentials), asked with the CFDI's QR expression.
 */
import { PacRefused, PacStampWithheld, PacUnavailable, type PacCancelAnswer, type PacClient, type PacStamp } from './pac-client.js';
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

/**
 * One HTTP call with a deadline. Whatever is not an answer of the service itself (no answer in time, no
 * connection, 5xx, a rejected or throttled account) is PacUnavailable, to be retried; the caller reads the rest.
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
  if (res.status >= 500 || res.status === 401 || res.status === 403 || res.status === 429) throw new PacUnavailable(`${service} answered ${res.status}`);
  return { status: res.status, text };
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
    throw new PacRefused(code, text.trim() || call.message);
  }
  throw new PacUnavailable(`unexpected answer from the PAC (HTTP ${call.httpStatus})`);
}

/** CDATA ends at the first `]]>`, so one inside a value is split over two sections. */
function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

export function swPacClient(baseUrl: string, token: string, timeoutMs: number, statusUrl: string): PacClient {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  return {
    async stamp(sealedXml, options = {}) {
      const form = new FormData();
      form.append('xml', new Blob([sealedXml], { type: 'application/xml' }), 'cfdi.xml');
      const stampHeaders = options.customId === undefined ? headers : { ...headers, customid: options.customId };
      const call = await callSw<SwStampData>(`${baseUrl}/v4/cfdi33/stamp/v4`, { body: form, headers: stampHeaders }, timeoutMs);
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
      const call = await callSw<SwCancelData>(`${baseUrl}/cfdi33/cancel/csd`, { body, headers: { ...headers, 'content-type': 'application/json' } }, timeoutMs);
      if (call.ok) return cancelAnswerFrom(call.answer.data, request.uuid);
      return failure(call);
    },

    async status(query) {
      // SAT reads the values raw (no percent-encoding), so an RFC with & or Ñ goes as written.
      const expression = `?re=${query.issuerRfc}&rr=${query.receptorRfc}&tt=${query.total}&id=${query.uuid}`;
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
      const texts = textsByLocalName(text, ['Estado', 'EsCancelable', 'EstatusCancelacion']);
      const state = texts?.get('Estado');
      if (status !== 200 || !state) throw new PacUnavailable(`unreadable answer from ${service} (HTTP ${status}${texts ? ', no Estado' : ', not XML'})`);
      return { state, cancellable: texts?.get('EsCancelable') ?? '', cancellationStatus: texts?.get('EstatusCancelacion') ?? '' };
    },
  };
}
