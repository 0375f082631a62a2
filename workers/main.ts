// Procfile `worker:` — every BullMQ worker; no API, only /metrics on WORKER_METRICS_PORT.
import { metricsServerFromConfig } from '../shared/platform/metrics/metrics-server-from-config.js';
import { config } from '../shared/platform/config.js';
import { exitOnStartupError, onShutdown, openRuntime } from '../shared/platform/runtime.js';
import { startWorkers } from './index.js';

try {
  const runtime = await openRuntime(config(), { migrate: false });
  const workers = await startWorkers(runtime);
  const metrics = await metricsServerFromConfig(runtime.config, runtime.logger);
  runtime.logger.info('workers running');
  onShutdown(runtime, async () => {
    await workers.close();
    await metrics.close();
    await runtime.close();
  });
} catch (err) {
  exitOnStartupError(err);
}
