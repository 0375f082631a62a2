import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startDevServices } from '../../bin/dev-services.js';
import { parseAdminPasswordHash, verifyAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { harness } from '../helpers/harness.js';

/** What `fn` writes to stdout, kept off the test's own output. */
async function stdoutOf(fn: () => Promise<void>): Promise<string> {
  const write = process.stdout.write.bind(process.stdout);
  let out = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
  }
  return out;
}

describe("the development entry's operator tools (issue #21)", () => {
  // The harness's fakes stand in for the parties, so only the operator credentials are made here.
  const parties = () => {
    const { csf, pac, smtp } = harness();
    // A data folder of the test's own: the development one (var/fakes) keeps the credentials across runs.
    const FAKE_DATA_DIR = mkdtempSync(join(tmpdir(), 'af-dev-data-'));
    return { CSF_BASE_URL: csf.url, PAC_BASE_URL: pac.url, PAC_TOKEN: pac.token, SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://localhost:3000', FAKE_DATA_DIR };
  };
  const printedPassword = (out: string) => /admin\/queues \(user ops, password ([A-Za-z0-9_-]+)\)/.exec(out)?.[1];
  const printedToken = (out: string) => /Bearer ([A-Za-z0-9_-]+)' http:\/\/localhost:3000\/metrics/.exec(out)?.[1];

  it("in development, prints the operator pages' password and a metrics token that the service will accept", async () => {
    const env: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...parties() };
    const out = await stdoutOf(() => startDevServices(env));
    expect(out).to.contain('Status page: http://localhost:3000/admin/status');
    const password = printedPassword(out);
    const token = printedToken(out);
    expect(password, out).to.be.a('string');
    expect(await verifyAdminPassword(password!, parseAdminPasswordHash(env.ADMIN_PASSWORD_HASH!))).to.equal(true);
    expect(env.METRICS_TOKEN).to.equal(token);
  });

  it('keeps them across restarts (issue #29): a second start serves the same password and prints the same metrics token', async () => {
    const first: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...parties() };
    const firstOut = await stdoutOf(() => startDevServices(first));
    const password = printedPassword(firstOut);
    expect(password, firstOut).to.be.a('string');
    const again: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...parties(), FAKE_DATA_DIR: first.FAKE_DATA_DIR };
    const againOut = await stdoutOf(() => startDevServices(again));
    expect(await verifyAdminPassword(password!, parseAdminPasswordHash(again.ADMIN_PASSWORD_HASH!)), 'the password printed at the first start').to.equal(true);
    expect(again.METRICS_TOKEN).to.equal(first.METRICS_TOKEN);
    expect(printedToken(againOut), againOut).to.equal(first.METRICS_TOKEN);
    expect(againOut).to.contain('Status page: http://localhost:3000/admin/status');
    // Kept where only the developer reads it, and without the password itself.
    const file = join(first.FAKE_DATA_DIR!, 'operator-credentials.json');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readFileSync(file, 'utf8')).to.not.include(password!);
  });

  it("keeps the operator's own settings, and makes none outside development", async () => {
    const chosen: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...parties(), METRICS_TOKEN: 'mine', ADMIN_PASSWORD_HASH: harness().deps.config.adminPasswordHash || undefined };
    await stdoutOf(() => startDevServices(chosen));
    expect(chosen.METRICS_TOKEN).to.equal('mine');
    const test: NodeJS.ProcessEnv = { NODE_ENV: 'test', ...parties() };
    expect(await stdoutOf(() => startDevServices(test))).to.equal('');
    expect(test.ADMIN_PASSWORD_HASH).to.equal(undefined);
    expect(test.METRICS_TOKEN).to.equal(undefined);
  });
});
