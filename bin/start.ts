// `npm start`: development in one process — the fakes of SAT, the PAC and SMTP where no address is set,
// then create the database if missing, migrate, run API and workers.
import { bootstrapAccount } from '../cli/bootstrap.js';
import { startApi } from '../api/server.js';
import { config as readConfig } from '../shared/platform/config.js';
import { exitOnStartupError, onShutdown, openRuntime } from '../shared/platform/runtime.js';
import { startWorkers } from '../workers/index.js';
import { startDevServices } from './dev-services.js';

const DEV_ACCOUNT = 'dev';

try {
  await startDevServices();
  const runtime = await openRuntime(readConfig(), { migrate: true });
  const workers = await startWorkers(runtime);
  const api = await startApi(runtime);
  const { config } = runtime;
  process.stdout.write(`Self-invoicing QR service on ${config.publicBaseUrl} (health: ${config.publicBaseUrl}/health)\n`);
  const hasAccount = (await runtime.db('accounts').where({ name: DEV_ACCOUNT }).first('id')) as { id: string } | undefined;
  if (!hasAccount && config.env !== 'production') {
    const creds = await bootstrapAccount(runtime.db, config, DEV_ACCOUNT);
    process.stdout.write(`Development account "${DEV_ACCOUNT}" created; shown once:\n${JSON.stringify(creds, null, 2)}\n`);
  } else {
    process.stdout.write(`Credentials for a development account: npm run -s cli -- bootstrap --json --account ${DEV_ACCOUNT}\n`);
  }
  onShutdown(runtime, async () => {
    await api.close();
    await workers.close();
    await runtime.close();
  });
} catch (err) {
  exitOnStartupError(err);
}
