// Development only: the external parties a fresh machine lacks (SAT's CSF service, the PAC, SMTP), as the
// fakes in fakes/, each a real server on loopback. The production entries (api/main.ts, workers/main.ts)
// never import this; the development entries start it first and hand the fakes' addresses to the
// configuration through the environment, so the same adapters talk to them over the wire.
import { resolve } from 'node:path';
import { startFakeCsfServer } from '../fakes/csf-server.js';
import { startFakePacServer } from '../fakes/pac-server.js';
import { startFakeSmtpServer } from '../fakes/smtp-server.js';
import { fakeMailDir, fakePacJournal, loadConfig } from '../shared/platform/config.js';
import { devOperatorCredentials } from './dev-operator-credentials.js';

/** Starts a fake for each of CSF_BASE_URL, PAC_BASE_URL and SMTP_URL left empty; refuses production. */
export async function startDevServices(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const cfg = loadConfig({ ...env, NODE_ENV: env.NODE_ENV === 'production' ? 'development' : env.NODE_ENV });
  if (env.NODE_ENV === 'production')
    throw new Error('the development entry starts fakes of SAT, the PAC and SMTP; production runs api/main.ts and workers/main.ts (see the Procfile)');
  const started: string[] = [];
  if (!cfg.csfBaseUrl) {
    env.CSF_BASE_URL = (await startFakeCsfServer()).url;
    started.push('CSF');
  }
  if (!cfg.pacBaseUrl) {
    // With PAC_USER and PAC_PASSWORD the service authenticates itself, as it would against SW; else the portal's token.
    const credentials = cfg.pacUser ? { user: cfg.pacUser, password: cfg.pacPassword } : undefined;
    const pac = await startFakePacServer({ journalFile: fakePacJournal(cfg), credentials });
    env.PAC_BASE_URL = pac.url;
    if (!credentials) env.PAC_TOKEN = pac.token;
    env.SAT_STATUS_URL = `${pac.url}/ConsultaCFDIService.svc`;
    started.push('PAC');
  }
  if (!cfg.smtpUrl) {
    const mailDir = fakeMailDir(cfg);
    env.SMTP_URL = (await startFakeSmtpServer({ mailDir })).url;
    started.push('SMTP');
    if (mailDir) process.stdout.write(`E-mails are not sent (no SMTP_URL): each one is kept as an .eml file in ${resolve(mailDir)}\n`);
  }
  await devOperatorCredentials(cfg, env);
  if (started.length > 0)
    process.stdout.write(
      `Development fakes on loopback: ${started.join(', ')} (set ${started.map((s) => (s === 'SMTP' ? 'SMTP_URL' : `${s}_BASE_URL`)).join(', ')} to use real ones)\n`,
    );
}
