import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';

/**
 * The worker process's metrics listener: on WORKER_METRICS_PORT when that and METRICS_TOKEN are set;
 * otherwise none (the close is then a no-op). Metrics are never served without a token.
 */
export async function metricsServerFromConfig(config: Readonly<Config>, logger: Logger): Promise<Pick<MetricsServer, 'close'>> {
  if (!config.workerMetricsPort || !config.metricsToken) return { close: async () => undefined };
  const server = await startMetricsServer({ port: config.workerMetricsPort, host: config.host, token: config.metricsToken, logger });
  logger.info({ url: `${server.url}/metrics` }, 'worker metrics listening');
  return server;
}
