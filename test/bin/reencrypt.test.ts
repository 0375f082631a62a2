import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { bootstrapAccount } from '../../cli/bootstrap.js';
import { reencryptSecrets } from '../../cli/reencrypt.js';
import { config, loadConfig } from '../../shared/platform/config.js';
import { boundTo, decrypt, encrypt, encryptionKeyring, parseEncryptionKey, sealingKeyId } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { ensureDatabase, knexConfig } from '../../shared/platform/db.js';
import { loadCsdMaterial } from '../../shared/repositories/merchant-csds.js';
import { legacyCiphertext } from '../helpers/legacy-ciphertext.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/** ENCRYPTION_KEY rotated from key 1 to key 2, on a database of its own (the suite's keeps key 1). */
describe('npm run cli -- reencrypt: rotating ENCRYPTION_KEY', function () {
  this.timeout(180_000);
  const url = `${config().databaseUrl}_rotation`;
  const [k1, k2] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
  const ring1 = encryptionKeyring({ encryptionKey: k1, encryptionKeyId: 1, encryptionPreviousKeys: [] });
  const ring2 = encryptionKeyring({ encryptionKey: k2, encryptionKeyId: 2, encryptionPreviousKeys: [] });
  let db: Knex;

  before(async () => {
    await ensureDatabase(url);
    db = knexFactory(knexConfig(url));
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
  });
  after(() => db.destroy());

  async function reencrypt() {
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/cli.ts', 'reencrypt', '--json'], {
        cwd: root,
        timeout: 120_000,
        env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: url, ENCRYPTION_KEY: k2, ENCRYPTION_KEY_ID: '2', ENCRYPTION_PREVIOUS_KEYS: `1:${k1}` },
      });
      return { code: 0, out: JSON.parse(stdout) as Record<string, { reencrypted: number; alreadyCurrent: number; failed: { id: string }[] }>, stdout };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return {
        code: e.code,
        out: JSON.parse(e.stdout || '{}') as Record<string, { reencrypted: number; alreadyCurrent: number; failed: { id: string }[] }>,
        stdout: e.stdout + e.stderr,
      };
    }
  }

  it('re-seals every secret under the new key, reads every older format, reports what it cannot read, and is idempotent', async () => {
    const cfg1 = loadConfig({ ...process.env, DATABASE_URL: url, ENCRYPTION_KEY: k1 });
    const [a, b] = [await bootstrapAccount(db, cfg1, 'rotation-a'), await bootstrapAccount(db, cfg1, 'rotation-b')];
    // B's password as a row from before key ids (format 1); a webhook secret under key 1; one sealed by a key nobody has.
    const password = (await loadCsdMaterial(db, b.merchantId, ring1))!.password;
    await db('merchant_csds')
      .where({ merchant_id: b.merchantId })
      .update({ password_encrypted: legacyCiphertext(Buffer.from(password), parseEncryptionKey(k1)) });
    const accountId = (await db('merchants').where({ id: a.merchantId }).first('account_id')).account_id as string;
    const endpoint = (id: string, sealed: Buffer) => db('webhook_endpoints').insert({ id, account_id: accountId, url: 'https://erp.example.com/hooks', secret_encrypted: sealed });
    await endpoint('we_rotation_ok', encrypt(Buffer.from('whsec_one'), ring1, boundTo.webhookSecret('we_rotation_ok')));
    const lost = encrypt(
      Buffer.from('whsec_lost'),
      encryptionKeyring({ encryptionKey: randomBytes(32).toString('hex'), encryptionKeyId: 9, encryptionPreviousKeys: [] }),
      boundTo.webhookSecret('we_rotation_lost'),
    );
    await endpoint('we_rotation_lost', lost);
    await db('offline_keys').insert({
      id: 'offKeyRot1',
      merchant_id: a.merchantId,
      window_hours: 72,
      secret_encrypted: encrypt(Buffer.from('offline-secret'), ring1, boundTo.offlineKey('offKeyRot1')),
    });

    const first = await reencrypt();
    expect(first.code, first.stdout).to.equal(1);
    expect(first.out['csd keys']).to.include({ reencrypted: 2, alreadyCurrent: 0 });
    expect(first.out['csd passwords']).to.include({ reencrypted: 2, alreadyCurrent: 0 });
    expect(first.out['webhook secrets']).to.include({ reencrypted: 1, alreadyCurrent: 0 });
    expect(first.out['offline keys']).to.include({ reencrypted: 1, alreadyCurrent: 0 });
    expect(first.out['webhook secrets']!.failed).to.deep.equal([
      { id: 'we_rotation_lost', error: 'encryption key id 9 is not configured (ENCRYPTION_KEY_ID, ENCRYPTION_PREVIOUS_KEYS)' },
    ]);
    expect(first.stdout).to.not.include(k1).and.not.include(k2);

    // Key 1 can be retired: everything opens with key 2 alone, nothing with key 1 alone; the lost row is untouched.
    for (const m of [a, b]) {
      const material = await loadCsdMaterial(db, m.merchantId, ring2);
      expect(material!.password).to.equal(password);
      await loadCsdMaterial(db, m.merchantId, ring1).then(
        () => expect.fail('key 1 still opens it'),
        (err: Error) => expect(err.message).to.match(/key id 2/),
      );
    }
    const ok = (await db('webhook_endpoints').where({ id: 'we_rotation_ok' }).first('secret_encrypted')).secret_encrypted as Buffer;
    expect([sealingKeyId(ok), decrypt(ok, ring2, boundTo.webhookSecret('we_rotation_ok')).toString()]).to.deep.equal([2, 'whsec_one']);
    const offline = (await db('offline_keys').where({ id: 'offKeyRot1' }).first('secret_encrypted')).secret_encrypted as Buffer;
    expect([sealingKeyId(offline), decrypt(offline, ring2, boundTo.offlineKey('offKeyRot1')).toString()]).to.deep.equal([2, 'offline-secret']);
    expect(((await db('webhook_endpoints').where({ id: 'we_rotation_lost' }).first('secret_encrypted')).secret_encrypted as Buffer).equals(lost)).to.equal(true);

    await db('webhook_endpoints').where({ id: 'we_rotation_lost' }).delete();
    const second = await reencrypt();
    expect(second.code, second.stdout).to.equal(0);
    expect(
      Object.values(second.out)
        .filter((c) => typeof c === 'object')
        .map((c) => [c.reencrypted, c.alreadyCurrent, c.failed.length]),
    ).to.deep.equal([
      [0, 2, 0],
      [0, 2, 0],
      [0, 1, 0],
      [0, 1, 0],
    ]);
  });

  it('goes through more rows than one batch, each once', async () => {
    const m = await bootstrapAccount(db, loadConfig({ ...process.env, DATABASE_URL: url, ENCRYPTION_KEY: k1 }), 'rotation-batches');
    const accountId = (await db('merchants').where({ id: m.merchantId }).first('account_id')).account_id as string;
    const ids = Array.from({ length: 450 }, (_, i) => `we_batch_${String(i).padStart(3, '0')}`);
    await db('webhook_endpoints').insert(
      ids.map((id) => ({ id, account_id: accountId, url: 'https://erp.example.com/hooks', secret_encrypted: encrypt(Buffer.from(id), ring1, boundTo.webhookSecret(id)) })),
    );
    const before = Number((await db('webhook_endpoints').whereNotIn('id', ids).count({ n: '*' }))[0]!.n);
    const rotated = encryptionKeyring({ encryptionKey: k2, encryptionKeyId: 2, encryptionPreviousKeys: [{ id: 1, key: k1 }] });

    expect((await reencryptSecrets(db, rotated))['webhook secrets']).to.deep.equal({ reencrypted: 450, alreadyCurrent: before, failed: [] });
    expect((await reencryptSecrets(db, rotated))['webhook secrets']).to.deep.equal({ reencrypted: 0, alreadyCurrent: before + 450, failed: [] });
    const rows = (await db('webhook_endpoints').whereIn('id', ids).select('id', 'secret_encrypted')) as { id: string; secret_encrypted: Buffer }[];
    expect(rows.filter((r) => decrypt(r.secret_encrypted, ring2, boundTo.webhookSecret(r.id)).toString() === r.id)).to.have.length(450);
  });
});
