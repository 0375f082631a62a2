import { startFakeCsfServer } from '../../fakes/csf-server.js';
import type { Config } from '../config.js';
import { measuredCsfClient } from '../metrics/measured-csf-client.js';
import type { CsfClient } from './csf-client.js';
import { httpCsfClient } from './http-csf-client.js';

/**
 * The CSF client a process uses: the adapter at CSF_BASE_URL, or, when that is empty (never in
 * production, see config.ts), the fake started in this process on a loopback port, still over HTTP.
 * Either way every call is timed in the CSF metrics.
 */
export async function csfClientFromConfig(config: Readonly<Config>): Promise<{ client: CsfClient; close(): Promise<void> }> {
  if (config.csfBaseUrl) return { client: measuredCsfClient(httpCsfClient(config.csfBaseUrl, config.csfTimeoutMs)), close: async () => undefined };
  const fake = await startFakeCsfServer();
  return { client: measuredCsfClient(httpCsfClient(fake.url, config.csfTimeoutMs)), close: fake.close };
}
