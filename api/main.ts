// Procfile `web:` — the HTTP API alone (workers run in `worker:`).
import { config } from '../shared/platform/config.js';
import { exitOnStartupError, onShutdown, openRuntime } from '../shared/platform/runtime.js';
import { startApi } from './server.js';

try {
  const runtime = await openRuntime(config(), { migrate: false });
  const api = await startApi(runtime);
  runtime.logger.info({ port: runtime.config.port }, 'api listening');
  onShutdown(runtime, async () => {
    await api.close();
    await runtime.close();
  });
} catch (err) {
  exitOnStartupError(err);
}
