/**
 * CsfClient over HTTP. SAT publishes the CSF as an HTML page behind the QR printed on the certificate
 * (https://siat.sat.gob.mx/app/qr/faces/pages/mobile/validadorqr.jsf?D1=10&D2=1&D3=<idCIF>_<RFC>), which
 * needs a network we do not have here. The service talks to an adapter instead, with this contract:
 *   GET {base}/v1/csf?rfc=<RFC>&idCif=<idCIF>
 *   200 { rfc, legalName, zip, status, regimes: [{ code, since? }] }   404 when SAT does not know the pair
 * The fake (fakes/csf-server.ts) implements it; a production adapter scrapes SAT's page into it.
 */
import { validator } from '../../platform/validation/ajv.js';
import { AppError } from '../../platform/errors.js';
import { CsfNotFound, CsfUnavailable, type CsfClient } from './csf-client.js';

const csfDataSchema = {
  $id: 'CsfAdapterResponse',
  type: 'object',
  required: ['rfc', 'legalName', 'zip', 'status', 'regimes'],
  properties: {
    rfc: { type: 'string', minLength: 12, maxLength: 13 },
    legalName: { type: 'string', minLength: 1, maxLength: 254 },
    zip: { type: 'string', pattern: '^[0-9]{5}$' },
    status: { type: 'string', maxLength: 50 },
    regimes: {
      type: 'array',
      maxItems: 30,
      items: {
        type: 'object',
        required: ['code'],
        properties: { code: { type: 'string', pattern: '^[0-9]{3}$' }, since: { type: 'string', maxLength: 10 } },
      },
    },
  },
} as const;

const validateCsfData = validator(csfDataSchema);

export function httpCsfClient(baseUrl: string, timeoutMs: number): CsfClient {
  return {
    async fetch(rfc, idCif) {
      const url = `${baseUrl}/v1/csf?${new URLSearchParams({ rfc, idCif })}`;
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
        text = await res.text();
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new CsfUnavailable(timedOut ? `no answer from the CSF service within ${timeoutMs} ms` : `CSF service unreachable: ${(err as Error).message}`);
      }
      if (res.status === 404) throw new CsfNotFound(`SAT has no tax-status certificate for ${rfc} with idCIF ${idCif}`);
      if (res.status !== 200) throw new CsfUnavailable(`CSF service answered ${res.status}`);
      try {
        return validateCsfData(JSON.parse(text));
      } catch (err) {
        const why = err instanceof AppError ? err.details.map((d) => `${d.field} ${d.code}`).join(', ') : 'not JSON';
        throw new CsfUnavailable(`unreadable answer from the CSF service (${why})`);
      }
    },
  };
}
