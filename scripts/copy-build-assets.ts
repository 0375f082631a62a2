/**
 * `npm run build`, second step: tsc compiles the TypeScript into dist/; this copies beside it every other
 * file the compiled code reads at run time through paths relative to itself (the buyer page's CSS and
 * script, the QR decoder's worker, SAT's catalogs and schemas in data/).
 */
import { cpSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const COMPILED_DIRS = ['api', 'workers', 'shared', 'cli', 'web'];

for (const dir of COMPILED_DIRS) {
  cpSync(join(root, dir), join(dist, dir), { recursive: true, filter: (source) => !source.endsWith('.ts') });
}
cpSync(join(root, 'data'), join(dist, 'data'), { recursive: true });
if (!existsSync(join(dist, 'api', 'main.js'))) throw new Error('dist/api/main.js is missing: run tsc -p tsconfig.build.json first');
