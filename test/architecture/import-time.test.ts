import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
/** Entry points run on import; everything else must only define things. */
const ENTRIES = new Set(['api/main.ts', 'workers/main.ts', 'bin/start.ts', 'bin/web.ts', 'bin/worker.ts', 'bin/cli.ts']);

function modules(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return modules(path);
    return path.endsWith('.ts') && !ENTRIES.has(path) ? [path] : [];
  });
}

describe('composition: no module reads the configuration or opens a connection when imported', function () {
  this.timeout(180_000);
  it('every module of api/, workers/, shared/, cli/ and bin/ imports under an environment config() would refuse', async () => {
    const files = ['api', 'workers', 'shared', 'cli', 'bin'].flatMap(modules);
    expect(files.length).to.be.above(100);
    const script = `for (const f of ${JSON.stringify(files.map((f) => pathToFileURL(join(root, f)).href))}) await import(f); console.log('imported');`;
    // PORT=not-a-port makes config() throw: a module calling it at import fails the import.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, PORT: 'not-a-port', NODE_ENV: 'development' },
      timeout: 170_000,
    }).catch((err: { stderr?: string }) => {
      throw new Error(`an import read the configuration or failed: ${err.stderr ?? 'no output'}`);
    });
    expect(stdout.trim()).to.equal('imported');
  });
});
