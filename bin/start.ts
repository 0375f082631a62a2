// `npm start`: development in one process — create the database if missing, migrate, run API and workers.
import { bootstrapAccount } from '../cli/bootstrap.js';
import { closeServer, startApi } from '../api/server.js';
import { exitOnStartupError, onShutdown, openRuntime } from '../shared/runtime.js';
import { startWorkers } from '../workers/index.js';
import { fakeMailDir } from '../shared/config.js';
import { resolve } from 'node:path';

const DEV_ACCOUNT = 'dev';

try {
  const runtime = await openRuntime({ migrate: true });
  const workers = await startWorkers(runtime);
  const server = await startApi(runtime);
  const { config } = runtime;
  process.stdout.write(`Self-invoicing QR service on ${config.publicBaseUrl} (health: ${config.publicBaseUrl}/health)\n`);
  const mailDir = config.smtpUrl ? undefined : fakeMailDir(config);
  if (mailDir) process.stdout.write(`E-mails are not sent (no SMTP_URL): each one is kept as an .eml file in ${resolve(mailDir)}\n`);
  const hasAccount = await runtime.db('accounts').where({ name: DEV_ACCOUNT }).first('id');
  if (!hasAccount && config.env !== 'production') {
    const creds = await bootstrapAccount(runtime.db, config, DEV_ACCOUNT);
    process.stdout.write(`Development account "${DEV_ACCOUNT}" created; shown once:\n${JSON.stringify(creds, null, 2)}\n`);
  } else {
    process.stdout.write(`Credentials for a development account: npm run cli -- bootstrap --json --account ${DEV_ACCOUNT}\n`);
  }
  onShutdown(async () => {
    await closeServer(server);
    await workers.close();
    await runtime.close();
  });
} catch (err) {
  exitOnStartupError(err);
}
