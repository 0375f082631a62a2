import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const LOGGER = fileURLToPath(new URL('../../../shared/platform/logger.ts', import.meta.url));
// A process that logs one line through the development (pretty) logger, as `npm start` does.
const LOG_ONE_LINE = `const { createLogger } = await import(${JSON.stringify(LOGGER)}); createLogger('info', 'pretty').info({ qr: 'tra_1' }, 'hello from the log');`;
const NODE_ARGS = ['--import', 'tsx', '--input-type=module', '-e', LOG_ONE_LINE];
const ESC = '\u001b[';

describe('development logs (LOG_FORMAT=pretty) are coloured only on a terminal (issue #29)', () => {
  it('writes no ANSI colour codes to a pipe or a file', async () => {
    const { stdout } = await run(process.execPath, NODE_ARGS);
    expect(stdout).to.include('hello from the log');
    expect(stdout).to.not.include(ESC);
  });

  it('colours them on a terminal', async function () {
    // script(1) runs the process on a pseudo-terminal, as a developer's shell would.
    const command = [process.execPath, ...NODE_ARGS].map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
    const { stdout } = await run('script', ['-qec', command, '/dev/null']).catch(() => ({ stdout: '' }));
    if (stdout === '') this.skip();
    expect(stdout).to.include('hello from the log');
    expect(stdout).to.include(ESC);
  });
});
