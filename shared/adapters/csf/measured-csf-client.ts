import { CsfNotFound, CsfUnavailable, type CsfClient } from './csf-client.js';
import { csfRequestDuration } from '../../platform/metrics/registry.js';

function outcomeOf(err: unknown): string {
  if (err instanceof CsfNotFound) return 'not_found';
  if (err instanceof CsfUnavailable) return 'unavailable';
  return 'error'; // the client throws only the two above: anything else is a bug worth seeing apart
}

/** The same CsfClient, timing every call by outcome in autofactura_csf_request_duration_seconds. */
export function measuredCsfClient(client: CsfClient): CsfClient {
  return {
    async fetch(rfc, idCif) {
      const end = csfRequestDuration.startTimer();
      try {
        const data = await client.fetch(rfc, idCif);
        end({ outcome: 'ok' });
        return data;
      } catch (err) {
        end({ outcome: outcomeOf(err) });
        throw err;
      }
    },
  };
}
