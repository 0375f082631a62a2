/**
 * PacClient speaking SW Sapien's ("SmarterWeb") public REST API, stamp version 4
 * (developers.sw.com.mx, "Stamp"): POST {base}/cfdi33/stamp/v4 with `Authorization: Bearer <token>` and
 * the sealed XML as the multipart field `xml`.
 *   200 { status: "success", data: { cfdi, uuid, fechaTimbrado, noCertificadoSAT, ... } }
 *   400 { status: "error", message: "CFDI40145 - <text>", messageDetail }
 * A document stamped before comes back as status "error", message "307. El comprobante contiene un
 * timbre previo." with the earlier stamp in `data`: that is how a retry learns it already succeeded.
 * The fake PAC (fakes/pac-server.ts) speaks the same format.
 */
import { PacRefused, PacUnavailable, type PacClient, type PacStamp } from './pac-client.js';

interface SwStampData {
  cfdi?: unknown;
  uuid?: unknown;
  fechaTimbrado?: unknown;
  noCertificadoSAT?: unknown;
}

interface SwAnswer {
  status?: unknown;
  message?: unknown;
  messageDetail?: unknown;
  data?: SwStampData | null;
}

const PREVIOUS_STAMP = /^307\b/;

function stampFrom(data: SwStampData | null | undefined, previouslyStamped: boolean): PacStamp {
  if (!data || typeof data.cfdi !== 'string' || typeof data.uuid !== 'string' || typeof data.fechaTimbrado !== 'string' || typeof data.noCertificadoSAT !== 'string') {
    throw new PacUnavailable('the PAC answered success without a complete stamp');
  }
  return { uuid: data.uuid.toUpperCase(), xml: data.cfdi, stampedAt: data.fechaTimbrado, satCertificateNumber: data.noCertificadoSAT, previouslyStamped };
}

export function swPacClient(baseUrl: string, token: string, timeoutMs: number): PacClient {
  return {
    async stamp(sealedXml) {
      const form = new FormData();
      form.append('xml', new Blob([sealedXml], { type: 'application/xml' }), 'cfdi.xml');
      let res: Response;
      let text: string;
      try {
        res = await fetch(`${baseUrl}/cfdi33/stamp/v4`, {
          method: 'POST', body: form, headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs),
        });
        text = await res.text();
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new PacUnavailable(timedOut ? `no answer from the PAC within ${timeoutMs} ms` : `PAC unreachable: ${(err as Error).message}`);
      }
      if (res.status >= 500 || res.status === 401 || res.status === 403 || res.status === 429) throw new PacUnavailable(`the PAC answered ${res.status}`);
      let answer: SwAnswer;
      try {
        answer = JSON.parse(text) as SwAnswer;
      } catch {
        throw new PacUnavailable(`unreadable answer from the PAC (HTTP ${res.status}, not JSON)`);
      }
      if (typeof answer !== 'object' || answer === null) throw new PacUnavailable('unreadable answer from the PAC');
      const message = typeof answer.message === 'string' ? answer.message : '';
      if (answer.status === 'success' && res.status === 200) return stampFrom(answer.data, false);
      if (answer.status === 'error' && PREVIOUS_STAMP.test(message)) return stampFrom(answer.data, true);
      if (answer.status === 'error' && res.status === 400) {
        const [, code = 'PAC', text2 = message] = /^([A-Z0-9]+)\s*[-.]\s*(.*)$/s.exec(message) ?? [];
        throw new PacRefused(code, text2.trim() || message);
      }
      throw new PacUnavailable(`unexpected answer from the PAC (HTTP ${res.status})`);
    },
  };
}
