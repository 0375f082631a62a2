import { startFakePacServer } from '../../fakes/pac-server.js';
import { fakePacJournal, type Config } from '../config.js';
import { measuredPacClient } from '../metrics/measured-pac-client.js';
import type { PacClient } from './pac-client.js';
import { swPacClient } from './sw-pac-client.js';

/**
 * The PAC a worker process uses: SW's API at PAC_BASE_URL (and SAT's status service at
 * SAT_STATUS_URL), or, when that is empty (never in production, see config.ts),
 * the fake PAC started in this process on a loopback port, still over HTTP, with its own status service.
 * Either way every call is timed in the PAC metrics.
 */
export async function pacClientFromConfig(config: Readonly<Config>): Promise<{ client: PacClient; close(): Promise<void> }> {
  if (config.pacBaseUrl) return { client: measuredPacClient(swPacClient(config.pacBaseUrl, config.pacToken, config.pacTimeoutMs, config.satStatusUrl)), close: async () => undefined };
  const fake = await startFakePacServer({ journalFile: fakePacJournal(config) });
  return { client: measuredPacClient(swPacClient(fake.url, fake.token, config.pacTimeoutMs, `${fake.url}/ConsultaCFDIService.svc`)), close: fake.close };
}
