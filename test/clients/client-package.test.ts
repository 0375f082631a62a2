import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('npm pack builds dist/ (prepack, removed again by postpack) and the tarball installs where the README says; the example creates a QR and sees the retry as a replay', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: CLIENT, env: env() });
    const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
    expect(files.map((f) => f.path)).to.include.members([
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'examples/pos.mjs',
      'README.md',
    ]);
    expect(files.map((f) => f.path).filter((p) => p.startsWith('src/'))).to.deep.equal([]);
    // Packing builds dist/ and removes it again: nothing is left in the service's tree (issue #39).
    expect(existsSync(join(CLIENT, 'dist'))).to.equal(false);

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

    // A CommonJS point of sale requires it (issue #39), with no install script for its npm to warn about.
    const legacy = join(work, 'pos-cjs');
    await run('mkdir', ['-p', legacy]);
    writeFileSync(join(legacy, 'package.json'), JSON.stringify({ name: 'pos-cjs', version: '1.0.0', private: true, type: 'commonjs' }));
    const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, filename)], { cwd: legacy, env: env() });
    expect(`${installed.stdout}${installed.stderr}`).to.not.match(/script|warn/i);
    const manifest = JSON.parse(readFileSync(join(legacy, 'node_modules/@autofactura/client/package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => /install|prepare/.test(name))).to.deep.equal([]);
    writeFileSync(
      join(legacy, 'pos.cjs'),
      `const { AutofacturaClient, offlineTicket } = require('@autofactura/client');
const client = new AutofacturaClient({ baseUrl: process.env.AUTOFACTURA_URL, apiKey: process.env.AUTOFACTURA_API_KEY });
client.createQr({ store_uid: process.env.AUTOFACTURA_STORE_UID, sale_id: 'CJS-' + Date.now(), operation: 'INVOICE', amount: 116, subtotal: 100, currency: 'MXN',
  sat_payment_method: 'PUE', sat_payment_form: '04', type_of_receipt: 'I', export_code: '01', expires_at: new Date(Date.now() + 86400000).toISOString(),
  operation_data: [{ description: 'Agua', quantity: 1, unit_price: 100, amount: 100, sat_unit_key: 'H87', sat_product_service_key: '50202301', sat_tax_object_key: '02',
    taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 100, amount: 16 }] }] })
  .then((qr) => console.log(JSON.stringify({ qr_id: qr.qr_id, offline: typeof offlineTicket })));
`,
    );
    const cjs = await run(process.execPath, ['pos.cjs'], {
      cwd: legacy,
      env: { ...env(), AUTOFACTURA_URL: harness().baseUrl, AUTOFACTURA_API_KEY: account.apiKey, AUTOFACTURA_STORE_UID: account.storeUid },
    });
    const made = JSON.parse(cjs.stdout) as { qr_id: string; offline: string };
    expect(made.offline).to.equal('function');
    expect((await harness().deps.db('qr_transactions').where({ id: made.qr_id }).first('merchant_id'))?.merchant_id).to.equal(account.merchantId);
  });
});
