import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { parseAdminPasswordHash, verifyAdminPassword } from '../../shared/platform/crypto/admin-password.js';

const root = new URL('../../', import.meta.url).pathname;

function npm(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_config_')));
  const child = spawn('npm', args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe("npm's own output in this repository (issue #29)", () => {
  it('is not silenced for every command: npm ci and npm run say what they do', async () => {
    // The repository once set loglevel=silent in .npmrc, so `npm ci` printed nothing for 20 s.
    const { code, stdout } = await npm(['config', 'get', 'loglevel']);
    expect(code).to.equal(0);
    expect(stdout.trim()).to.not.equal('silent');
    const help = await npm(['run', 'cli', '--', '--help']);
    expect(help.stdout).to.include('> autofactura-qr@0.1.0 cli');
  });

  it('`npm run -s cli` (as the docs write it) prints only what the command prints: a hash that can be redirected to a file', async () => {
    const password = 'correct horse battery';
    const { code, stdout, stderr } = await npm(['run', '-s', 'cli', '--', 'admin-password'], `${password}\n`);
    expect(code, stderr).to.equal(0);
    expect(stdout.trim().split('\n')).to.have.length(1);
    expect(await verifyAdminPassword(password, parseAdminPasswordHash(stdout.trim()))).to.equal(true);
  });
});
