// Development only: the operator's password (status page, queue dashboard) and the metrics token, kept
// across restarts so a local Prometheus scrape and a logged-in browser survive `npm start` again.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { hashAdminPassword, parseAdminPasswordHash } from '../shared/platform/crypto/admin-password.js';
import { devOperatorCredentialsFile, type Config } from '../shared/platform/config.js';

/** What the file holds: the password's scrypt hash, never the password; the token as Prometheus sends it. */
interface StoredCredentials {
  adminPasswordHash?: string;
  metricsToken?: string;
}

async function readStored(file: string | undefined): Promise<StoredCredentials> {
  if (!file) return {};
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as StoredCredentials;
    const hash = typeof parsed.adminPasswordHash === 'string' ? parsed.adminPasswordHash : undefined;
    if (hash !== undefined) parseAdminPasswordHash(hash); // a damaged hash is replaced, not a failed boot
    return { adminPasswordHash: hash, metricsToken: typeof parsed.metricsToken === 'string' && parsed.metricsToken !== '' ? parsed.metricsToken : undefined };
  } catch {
    return {};
  }
}

/**
 * Without ADMIN_PASSWORD_HASH and METRICS_TOKEN, /admin/status, /admin/queues and /metrics would answer
 * 404 in development. Made once, kept in FAKE_DATA_DIR (`operator-credentials.json`, mode 0600; memory
 * only when it is empty) and reused at every start: the password is printed when it is made (the file
 * keeps only its hash), the token at every start. Production keeps refusing to serve them without
 * configuration.
 */
export async function devOperatorCredentials(cfg: Readonly<Config>, env: NodeJS.ProcessEnv): Promise<void> {
  if (cfg.env !== 'development') return;
  const file = devOperatorCredentialsFile(cfg);
  const stored = await readStored(file);
  const next: StoredCredentials = { ...stored };
  const lines: string[] = [];
  const pages = `Status page: ${cfg.publicBaseUrl}/admin/status and queue dashboard: ${cfg.publicBaseUrl}/admin/queues`;
  if (!cfg.adminPasswordHash) {
    if (stored.adminPasswordHash) {
      lines.push(`${pages} (user ${cfg.adminUser}, the password printed when ${file} was made; delete that file for a new one)`);
    } else {
      const password = randomBytes(12).toString('base64url');
      next.adminPasswordHash = await hashAdminPassword(password);
      lines.push(`${pages} (user ${cfg.adminUser}, password ${password})${file ? ' — shown once: the service keeps only its hash' : ''}`);
    }
    env.ADMIN_PASSWORD_HASH = next.adminPasswordHash;
  }
  if (!cfg.metricsToken) {
    next.metricsToken ??= randomBytes(18).toString('base64url');
    env.METRICS_TOKEN = next.metricsToken;
    lines.push(`Metrics: curl -H 'Authorization: Bearer ${next.metricsToken}' ${cfg.publicBaseUrl}/metrics`);
  }
  if (file && (next.adminPasswordHash !== stored.adminPasswordHash || next.metricsToken !== stored.metricsToken)) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600); // an older file keeps its mode on overwrite
  }
  if (lines.length > 0) {
    const kept = file ? `kept across restarts in ${resolve(file)}` : 'for this run';
    process.stdout.write(`Development operator credentials, ${kept} (set ADMIN_PASSWORD_HASH and METRICS_TOKEN to choose them):\n  ${lines.join('\n  ')}\n`);
  }
}
