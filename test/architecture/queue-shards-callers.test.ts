import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const root = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('issue #40: the service reads a queue on its shard, or on all of them', () => {
  it("no module of api/, workers/, shared/, cli/, bin/, bench/ or chaos/ calls Producers.queue (shard 0's alone)", () => {
    const callers = ['api', 'workers', 'shared', 'cli', 'bin', 'bench', 'chaos']
      .flatMap(sources)
      .filter((path) => /producers!?\)?\.queue\(/.test(readFileSync(join(root, path), 'utf8')));
    expect(callers).to.deep.equal([]);
  });
});
