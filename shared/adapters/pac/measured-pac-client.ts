import { PacCredentialsRejected, PacRefused, PacUnavailable, type PacClient } from './pac-client.js';
import { pacRequestDuration } from '../../platform/metrics/registry.js';

function outcomeOf(err: unknown): string {
  if (err instanceof PacRefused) return 'refused';
  if (err instanceof PacUnavailable) return 'unavailable';
  if (err instanceof PacCredentialsRejected) return 'credentials_rejected';
  return 'error'; // the client throws only the three above: anything else is a bug worth seeing apart
}

async function measure<T>(operation: 'stamp' | 'cancel' | 'status', call: () => Promise<T>): Promise<T> {
  const end = pacRequestDuration.startTimer({ operation });
  try {
    const answer = await call();
    end({ outcome: 'ok' });
    return answer;
  } catch (err) {
    end({ outcome: outcomeOf(err) });
    throw err;
  }
}

/** The same PacClient, timing every call by operation and outcome in autofactura_pac_request_duration_seconds. */
export function measuredPacClient(client: PacClient): PacClient {
  return {
    stamp: (sealedXml, options) => measure('stamp', () => client.stamp(sealedXml, options)),
    cancel: (request) => measure('cancel', () => client.cancel(request)),
    status: (query) => measure('status', () => client.status(query)),
  };
}
