import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { declaredRoutes } from '../../api/route-catalog.js';

const apiMd = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

/** '/v1/qrs/merchants/{id}?issuerId=' → '/v1/qrs/merchants/{}': the docs name parameters as they read best. */
const shape = (path: string) => path.replace(/\?.*$/, '').replace(/\{\w+\}/g, '{}');

/** The rows of docs/api.md's route table: each operation it names in full (`GET`, `PUT /path` names two), with the 2xx it says. */
function tableRows(): { operations: string[]; success: string[]; row: string }[] {
  const start = apiMd.indexOf('| route | success |');
  const lines = apiMd.slice(start).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('|')),
  );
  return rows.map((row) => {
    const [, route = '', success = ''] = row.split('|').map((cell) => cell.trim());
    const operations: string[] = [];
    let methods: string[] = [];
    for (const [, method, path] of route.matchAll(/`(GET|POST|PUT|PATCH|DELETE)(?: (\/[^`\s]*))?`/g)) {
      methods.push(method!);
      if (path === undefined) continue;
      operations.push(...methods.map((m) => `${m} ${shape(path)}`));
      methods = [];
    }
    return { operations, success: [...success.matchAll(/\b(2\d\d)\b/g)].map((m) => m[1]!), row };
  });
}

describe("docs/api.md's route table against the declarations (issue #42)", () => {
  it('names only declared operations, each with a success status its declaration documents', () => {
    const declared = new Map(declaredRoutes().map((route) => [`${route.method.toUpperCase()} ${shape(route.path)}`, Object.keys(route.docs?.responses ?? {})]));
    const rows = tableRows();
    expect(rows.length).to.be.greaterThan(10);
    const wrong: string[] = [];
    for (const { operations, success, row } of rows) {
      expect(operations, row).to.not.be.empty;
      for (const operation of operations) {
        const statuses = declared.get(operation);
        if (!statuses) wrong.push(`${operation}: not declared`);
        else for (const status of success.filter((s) => !statuses.includes(s))) wrong.push(`${operation}: ${status} not documented`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });
});
