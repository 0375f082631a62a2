import { startFakeSmtpServer } from '../../fakes/smtp-server.js';
import { fakeMailDir, type Config } from '../config.js';
import type { Mailer } from './invoice-mailer.js';
import { smtpMailer } from './smtp-mailer.js';

/**
 * The mailer a worker process uses: SMTP at SMTP_URL, or, when that is empty (never in production, see
 * config.ts), a fake SMTP server started in this process on a loopback port, still over SMTP.
 */
export async function mailerFromConfig(config: Readonly<Config>): Promise<{ mailer: Mailer; close(): Promise<void> }> {
  const url = config.smtpUrl || undefined;
  const fake = url ? undefined : await startFakeSmtpServer({ mailDir: fakeMailDir(config) });
  const mailer = smtpMailer({ url: url ?? fake!.url, from: config.mailFrom, timeoutMs: config.smtpTimeoutMs });
  return {
    mailer,
    async close() {
      mailer.close();
      await fake?.close();
    },
  };
}
