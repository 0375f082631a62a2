import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';

const run = promisify(execFile);
const CLIENT = new URL('../../clients/typescript/', import.meta.url).pathname;
// npm as a developer runs it, not with the settings of the npm that started the test run.
const env = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));

describe('the TypeScript client as a package (issue #29): packed, installed into an empty project, its POS example run', function () {
  this.timeout(240_000);
  let account: BootstrapResult;
  let work: string;
  before(async () => {
    account = await harness().bootstrap();
    work = mkdtempSync(join(tmpdir(), 'af-client-package-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('npm pack builds dist/ (prepare) and the tarball installs where the README says; the example creates a QR and sees the retry as a replay', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: CLIENT, env: env() });
    const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
    expect(files.map((f) => f.path)).to.include.members(['dist/index.js', 'dist/index.d.ts', 'examples/pos.mjs', 'README.md']);
    expect(files.map((f) => f.path).filter((p) => p.startsWith('src/'))).to.deep.equal([]);

    const pos = join(work, 'pos');
    rmSync(pos, { recursive: true, force: true });
    await run('mkdir', ['-p', pos]);
    writeFileSync(join(pos, 'package.json'), JSON.stringify({ name: 'pos', version: '1.0.0', private: true, type: 'module' }));
    // The client has no dependencies: installing its tarball needs no registry.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, filename)], { cwd: pos, env: env() });
    expect(existsSync(join(pos, 'node_modules/@autofactura/client/dist/index.js'))).to.equal(true);

    copyFileSync(join(pos, 'node_modules/@autofactura/client/examples/pos.mjs'), join(pos, 'pos.mjs'));
    const { stdout } = await run(process.execPath, ['pos.mjs'], {
      cwd: pos,
      env: { ...env(), AUTOFACTURA_URL: harness().baseUrl, AUTOFACTURA_API_KEY: account.apiKey, AUTOFACTURA_STORE_UID: account.storeUid },
    });
    const out = JSON.parse(stdout) as { qr_id: string; status: string; qr_content: string; replayed: boolean; retry: { qr_id: string; replayed: boolean } };
    expect(out).to.deep.include({ status: 'PENDING', replayed: false });
    expect(out.retry).to.deep.equal({ qr_id: out.qr_id, replayed: true });
    const stored = await harness().deps.db('qr_transactions').where({ id: out.qr_id }).first('merchant_id');
    expect(stored?.merchant_id).to.equal(account.merchantId);
  });
});
