import type { Config } from '../../platform/config.js';
import { requiredAdapterUrl } from '../../platform/required-adapter-url.js';
import type { Mailer } from './invoice-mailer.js';
import { smtpMailer } from './smtp-mailer.js';

/** The mailer a worker process uses: SMTP at SMTP_URL. */
export function mailerFromConfig(config: Readonly<Config>): Mailer & { close(): void } {
  return smtpMailer({ url: requiredAdapterUrl('SMTP_URL', config.smtpUrl), from: config.mailFrom, timeoutMs: config.smtpTimeoutMs });
}
