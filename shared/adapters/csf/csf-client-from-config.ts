import type { Config } from '../../platform/config.js';
import { measuredCsfClient } from './measured-csf-client.js';
import { requiredAdapterUrl } from '../../platform/required-adapter-url.js';
import type { CsfClient } from './csf-client.js';
import { httpCsfClient } from './http-csf-client.js';

/** The CSF client a process uses: the adapter at CSF_BASE_URL, every call timed in the CSF metrics. */
export function csfClientFromConfig(config: Readonly<Config>): CsfClient {
  return measuredCsfClient(httpCsfClient(requiredAdapterUrl('CSF_BASE_URL', config.csfBaseUrl), config.csfTimeoutMs));
}
