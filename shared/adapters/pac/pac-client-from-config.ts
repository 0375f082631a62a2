import type { Config } from '../../platform/config.js';
import { measuredPacClient } from './measured-pac-client.js';
import { requiredAdapterUrl } from '../../platform/required-adapter-url.js';
import type { PacClient } from './pac-client.js';
import { swPacClient } from './sw-pac-client.js';

/**
 * The PAC a worker process uses: SW's API at PAC_BASE_URL with PAC_TOKEN, or with a token of its own from
 * PAC_USER and PAC_PASSWORD, and SAT's status service at SAT_STATUS_URL, every call timed in the PAC metrics.
 */
export function pacClientFromConfig(config: Readonly<Config>): PacClient {
  const credentials = config.pacToken ? { token: config.pacToken } : { user: config.pacUser, password: config.pacPassword };
  return measuredPacClient(swPacClient(requiredAdapterUrl('PAC_BASE_URL', config.pacBaseUrl), credentials, config.pacTimeoutMs, config.satStatusUrl));
}
