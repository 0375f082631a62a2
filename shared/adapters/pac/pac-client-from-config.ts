import type { Config } from '../../platform/config.js';
import { measuredPacClient } from './measured-pac-client.js';
import { requiredAdapterUrl } from '../../platform/required-adapter-url.js';
import type { PacClient } from './pac-client.js';
import { swPacClient } from './sw-pac-client.js';

/** The PAC a worker process uses: SW's API at PAC_BASE_URL and SAT's status service at SAT_STATUS_URL, every call timed in the PAC metrics. */
export function pacClientFromConfig(config: Readonly<Config>): PacClient {
  return measuredPacClient(swPacClient(requiredAdapterUrl('PAC_BASE_URL', config.pacBaseUrl), config.pacToken, config.pacTimeoutMs, config.satStatusUrl));
}
