import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { openApiDocument } from '../../api/route-catalog.js';

const root = new URL('../../', import.meta.url).pathname;

/** Every `status`/`code` pair the service's source can answer: each `AppError(<status>, '<code>'` in api/ and shared/. */
function answerableCodes(): Set<string> {
  const pairs = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/AppError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) pairs.add(`${m[1]} ${m[2]}`);
    }
  };
  walk(join(root, 'api'));
  walk(join(root, 'shared'));
  return pairs;
}

type Doc = {
  paths: Record<
    string,
    Record<string, { summary?: string; description?: string; responses?: Record<string, { content?: Record<string, { example?: { error?: { code?: string } } }> }> }>
  >;
};

describe('issue #39: the OpenAPI document shows only error codes the service answers', () => {
  it("every error answer's example names a code some AppError of that status carries", () => {
    const answerable = answerableCodes();
    expect(answerable.size).to.be.above(50);
    const doc = openApiDocument('https://factura.example.test') as unknown as Doc;
    const invented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, answer] of Object.entries(op.responses ?? {})) {
          const code = answer.content?.['application/json']?.example?.error?.code;
          if (code !== undefined && !answerable.has(`${status} ${code}`)) invented.push(`${method.toUpperCase()} ${path} ${status} ${code}`);
        }
      }
    }
    expect(invented).to.deep.equal([]);
  });

  it('titles every operation in plain short text (Redoc shows a summary raw), the whole text kept in its description', () => {
    const doc = openApiDocument('https://factura.example.test') as unknown as Doc;
    const bad: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.summary === undefined) continue;
        if (op.summary.includes('`') || op.summary.length > 90) bad.push(`${method.toUpperCase()} ${path}: ${op.summary}`);
      }
    }
    expect(bad).to.deep.equal([]);
    const listed = doc.paths['/v1/qrs']!.get!;
    expect(listed.description).to.include('`');
  });

  it("POST /v1/qrs/invoices/exports's 202 example is what it answers: a PENDING export with no link", () => {
    const doc = openApiDocument('https://factura.example.test') as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { example?: { status?: string; download_url?: unknown } }> }> }>>;
    };
    const example = doc.paths['/v1/qrs/invoices/exports']!.post!.responses['202']!.content['application/json']!.example;
    expect(example).to.include({ status: 'PENDING', download_url: null });
  });
});
