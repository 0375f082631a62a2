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
    return { CSF_BASE_URL: csf.url, PAC_BASE_URL: pac.url, PAC_TOKEN: pac.token, SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://localhost:3000' };
  };

  it("in development, prints the operator pages' password and a metrics token that the service will accept", async () => {
    const env: NodeJS.ProcessEnv = { NODE_ENV: 'development', ...parties() };
    const out = await stdoutOf(() => startDevServices(env));
    expect(out).to.contain('Status page: http://localhost:3000/admin/status');
    const password = /admin\/queues \(user ops, password ([A-Za-z0-9_-]+)\)/.exec(out)?.[1];
    const token = /Bearer ([A-Za-z0-9_-]+)' http:\/\/localhost:3000\/metrics/.exec(out)?.[1];
    expect(password, out).to.be.a('string');
    expect(await verifyAdminPassword(password!, parseAdminPasswordHash(env.ADMIN_PASSWORD_HASH!))).to.equal(true);
    expect(env.METRICS_TOKEN).to.equal(token);
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
