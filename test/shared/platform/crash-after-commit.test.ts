import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { loadConfig } from '../../../shared/platform/config.js';

describe('crash-after-commit (fault injection for npm run chaos)', function () {
  this.timeout(30_000);
  const module = new URL('../../../shared/platform/crash-after-commit.ts', import.meta.url).pathname;
  const run = (probability: number) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(module)}); m.armCrashAfterCommit(${probability}); m.crashAfterCommit('invoice-stamped'); console.log('went on');`,
      ],
      { encoding: 'utf8' },
    );

  it('armed with 1, the process dies by SIGKILL at the commit point and says where on stderr', () => {
    const child = run(1);
    expect(child.signal).to.equal('SIGKILL');
    expect(child.stderr).to.contain('crash-after-commit invoice-stamped');
    expect(child.stdout).to.not.contain('went on');
  });

  it('off (0, the default), the call does nothing', () => {
    const child = run(0);
    expect(child.status).to.equal(0);
    expect(child.stdout).to.contain('went on');
  });

  it('is refused in production and outside 0–1', () => {
    const production = {
      NODE_ENV: 'production',
      QR_HMAC_KEY: 'q'.repeat(32),
      URL_SIGNING_KEY: 'u'.repeat(32),
      ENCRYPTION_KEY: 'ab'.repeat(32),
      CSF_BASE_URL: 'https://csf.example.com',
      PAC_BASE_URL: 'https://pac.example.com',
      PAC_TOKEN: 't',
      SMTP_URL: 'smtp://mail.example.com',
    };
    expect(loadConfig(production).crashAfterCommit).to.equal(0);
    expect(() => loadConfig({ ...production, CRASH_AFTER_COMMIT: '0.1' })).to.throw(/CRASH_AFTER_COMMIT/);
    expect(loadConfig({ NODE_ENV: 'development', CRASH_AFTER_COMMIT: '0.25' }).crashAfterCommit).to.equal(0.25);
    for (const bad of ['2', '-0.1', 'often']) expect(() => loadConfig({ NODE_ENV: 'development', CRASH_AFTER_COMMIT: bad }), bad).to.throw(/CRASH_AFTER_COMMIT/);
  });
});
