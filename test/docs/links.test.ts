import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';

const root = new URL('../../', import.meta.url).pathname;
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const line of markdown.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (m)
      out.add(
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, '')
          .replace(/\s/g, '-'),
      );
  }
  return out;
}

/** Every [text](target) outside code blocks and code spans. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('documentation links', () => {
  it('the README links every page in docs/', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const page of pages.filter((p) => p !== 'README.md')) expect(readme, page).to.include(`](${page}`);
  });

  for (const page of pages) {
    it(`every relative link of ${page} reaches a file and, with #, a heading in it`, () => {
      const text = readFileSync(join(root, page), 'utf8');
      for (const link of links(text).filter((l) => !/^[a-z]+:/.test(l))) {
        const [path, anchor] = link.split('#');
        const target = path ? join(dirname(join(root, page)), path) : join(root, page);
        expect(existsSync(target), `${page} → ${link}`).to.equal(true);
        if (anchor) expect([...anchors(readFileSync(target, 'utf8'))], `${page} → ${link} (in ${relative(root, target)})`).to.include(anchor);
      }
    });
  }
});
