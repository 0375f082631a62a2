// Procfile `worker:` — every BullMQ worker, no HTTP.
import { exitOnStartupError, onShutdown, openRuntime } from '../shared/runtime.js';
import { startWorkers } from './index.js';

try {
  const runtime = await openRuntime({ migrate: false });
  const workers = await startWorkers(runtime);
  runtime.logger.info('workers running');
  onShutdown(async () => {
    await workers.close();
    await runtime.close();
  });
} catch (err) {
  exitOnStartupError(err);
}
