import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { hashAdminPassword } from '../shared/platform/crypto/admin-password.js';

/**
 * `admin-password`: reads the operator password from stdin (first line; typed without echo on a
 * terminal, or piped) and returns the ADMIN_PASSWORD_HASH value. The password never appears in
 * argv, the shell history or the output.
 */
export async function adminPasswordHash(input: NodeJS.ReadStream, prompt: NodeJS.WriteStream): Promise<string> {
  const terminal = input.isTTY === true;
  if (terminal) prompt.write('Operator password: ');
  // readline echoes what is typed to its output; a sink keeps it off the screen.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input, output: silent, terminal });
  const password = await new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
    // Without a listener, readline merely pauses on Ctrl-C and the command would hang.
    lines.once('SIGINT', () => lines.close());
  });
  lines.close();
  if (terminal) prompt.write('\n');
  if (password === undefined) throw new RangeError('no password given');
  return hashAdminPassword(password);
}
