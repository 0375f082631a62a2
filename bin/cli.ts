// `npm run cli -- <verb>`: operator commands. Run with no verb for help.
import { parseArgs } from 'node:util';
import { adminPasswordHash } from '../cli/admin-password.js';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { reencryptSecrets } from '../cli/reencrypt.js';
import { attentionVerb, AttentionUsageError, operatorName } from '../cli/attention.js';
import { pino } from 'pino';
import { createProducers } from '../shared/platform/queues.js';
import { encryptionKeyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import { checkPostgres, ServiceUnreachable } from '../shared/platform/check-services.js';
import { config } from '../shared/platform/config.js';
import { closeDb, db, migrateLatest } from '../shared/platform/db.js';
import { principalsChanged } from '../shared/platform/principal-generation.js';
import { connectFailFast, serviceKeyPrefix } from '../shared/platform/redis.js';
import { createAccessToken, revokeAccessTokens } from '../shared/repositories/access-tokens.js';
import { findAccountByName, rotateClientSecret } from '../shared/repositories/accounts.js';

const HELP = `usage: npm run cli -- <verb> [options]
  migrate                                  create the database if missing and apply migrations
  bootstrap --account NAME [--json]        create or reuse a development account with an issuer (EKU9003173C9),
                                           an ACTIVE merchant with the SAT test CSD, a new API key and access token
  token create --account NAME [--json]     issue a new bearer access token for an account
  client-secret --account NAME [--json]    issue a new client secret for POST /v1/auth/token (the previous one stops working)
  token revoke --account NAME              revoke every live access token of an account
  token revoke --token TOKEN               revoke one access token
  admin-password                           read the queue dashboard's operator password from stdin, print ADMIN_PASSWORD_HASH
  reencrypt [--json]                       seal every stored secret (CSD keys and passwords, webhook secrets) again under
                                           ENCRYPTION_KEY_ID, reading older ones with ENCRYPTION_PREVIOUS_KEYS; exit 1 if
                                           any did not decrypt
  attention list [--json]                  what the service stopped retrying by itself, per kind (invoice, withheld-stamp,
                                           cancellation, global-period, invoice-email, csf-sync, export, webhook-delivery),
                                           each with its id, merchant, cause and since
  attention retry KIND ID|--all [--json]   queue it (or, after an outage, every one of the kind) again, each audited in
                                           the log; exit 1 if it does not need attention
  attention give-up KIND ID [--json]       end it for good (audited; docs/operations.md, Runbook, says what each kind's
                                           give-up does); exit 1 if it does not need attention
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const verb = positionals.join(' ');
  if (values.help || verb === '') {
    process.stdout.write(HELP);
    return verb === '' && !values.help ? 2 : 0;
  }
  if (verb === 'admin-password') {
    // Needs no database: hashing is all it does.
    try {
      process.stdout.write(`${await adminPasswordHash(process.stdin, process.stderr)}\n`);
    } catch (err) {
      throw err instanceof RangeError ? new UsageError(`admin-password: ${err.message}`) : err;
    }
    return 0;
  }
  const cfg = config();
  await checkPostgres(cfg.databaseUrl);
  await migrateLatest(db());
  const print = (value: object) => process.stdout.write(values.json ? `${JSON.stringify(value)}\n` : `${JSON.stringify(value, null, 2)}\n`);
  switch (verb) {
    case 'migrate':
      process.stdout.write('database is up to date\n');
      return 0;
    case 'bootstrap': {
      if (!values.account) throw new UsageError('bootstrap needs --account NAME');
      print(await bootstrapAccount(db(), cfg, values.account));
      await announcePrincipalsChanged(cfg);
      return 0;
    }
    case 'token create': {
      if (!values.account) throw new UsageError('token create needs --account NAME');
      const account = await findAccountByName(db(), values.account);
      if (!account) throw new UsageError(`no account named ${values.account}`);
      const token = await createAccessToken(db(), account.accountId, cfg.accessTokenTtlSeconds);
      print({ accessToken: token.token, expiresAt: token.expiresAt.toISOString() });
      return 0;
    }
    case 'client-secret': {
      if (!values.account) throw new UsageError('client-secret needs --account NAME');
      const account = await findAccountByName(db(), values.account);
      if (!account) throw new UsageError(`no account named ${values.account}`);
      print(await rotateClientSecret(db(), account.accountId));
      return 0;
    }
    case 'token revoke': {
      let revoked: number;
      if (values.token) {
        revoked = await revokeAccessTokens(db(), { token: values.token });
      } else if (values.account) {
        const account = await findAccountByName(db(), values.account);
        if (!account) throw new UsageError(`no account named ${values.account}`);
        revoked = await revokeAccessTokens(db(), { accountId: account.accountId });
      } else {
        throw new UsageError('token revoke needs --account NAME or --token TOKEN');
      }
      print({ revoked });
      return 0;
    }
    case 'reencrypt': {
      const counts = await reencryptSecrets(db(), encryptionKeyring(cfg));
      print({ keyId: cfg.encryptionKeyId, ...counts });
      return Object.values(counts).some((c) => c.failed.length > 0) ? 1 : 0;
    }
    default:
      if (positionals[0] === 'attention') return attention(cfg, positionals.slice(1), { json: values.json, all: values.all });
      throw new UsageError(`unknown verb "${verb}"\n${HELP}`);
  }
}

class UsageError extends Error {}

/** `attention …`: needs the queues too (a retry queues its job); the audit line goes to stderr as a JSON log line. */
async function attention(cfg: ReturnType<typeof config>, args: string[], flags: { json: boolean; all: boolean }): Promise<number> {
  const redis = await connectFailFast(cfg);
  const producers = await createProducers(redis, cfg);
  const log = pino({ level: 'info', base: { service: 'autofactura-qr', process: 'cli' } }, pino.destination({ fd: 2, sync: true }));
  try {
    return await attentionVerb({ db: db(), producers }, log, args, { ...flags, operator: operatorName() }, (text) => process.stdout.write(text));
  } catch (err) {
    throw err instanceof AttentionUsageError ? new UsageError(err.message) : err;
  } finally {
    await producers.close();
    redis.disconnect();
  }
}

main(process.argv.slice(2)).then(
  async (code) => {
    await closeDb();
    process.exit(code);
  },
  async (err: unknown) => {
    await closeDb().catch(() => undefined);
    process.stderr.write(`${err instanceof UsageError || err instanceof ServiceUnreachable ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);

/**
 * bootstrap may reactivate a running merchant or give it a CSD: running API processes drop their cached API
 * key principals (shared/platform/principal-generation.ts). Without Redis they keep them at most their max age.
 */
async function announcePrincipalsChanged(cfg: ReturnType<typeof config>): Promise<void> {
  const warn = { error: () => process.stderr.write('warning: Redis not reached; running API processes see this change within a minute\n') };
  try {
    const redis = await connectFailFast(cfg, { keyPrefix: serviceKeyPrefix(cfg.queuePrefix) });
    await principalsChanged(redis, warn);
    redis.disconnect();
  } catch {
    warn.error();
  }
}
