import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The project's root: where the Procfile's commands run. */
export const projectRoot = new URL('../../', import.meta.url).pathname;

/** The command of a Procfile process type (`web`, `worker`), as argv: the platform starts exactly that. */
export function procfileCommand(type: string): string[] {
  const line = readFileSync(join(projectRoot, 'Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${type}:`));
  if (!line) throw new Error(`Procfile has no ${type}:`);
  return line
    .slice(type.length + 1)
    .trim()
    .split(/\s+/);
}
