import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { normalisedDocument, OPENAPI_SNAPSHOT_FILE } from '../helpers/openapi-snapshot.js';

describe('the OpenAPI document against its snapshot (issue #42)', () => {
  it('is the one served before the routes were declared once, keys sorted: a change to it is a change to the snapshot, reviewed', () => {
    const expected = readFileSync(OPENAPI_SNAPSHOT_FILE, 'utf8');
    const actual = normalisedDocument();
    if (actual === expected) return;
    // The first differing line, with a few around it: a 9,000-line diff helps nobody.
    const a = actual.split('\n');
    const e = expected.split('\n');
    const first = a.findIndex((line, i) => line !== e[i]);
    expect(a.slice(Math.max(0, first - 8), first + 8).join('\n')).to.equal(e.slice(Math.max(0, first - 8), first + 8).join('\n'));
    expect(actual).to.equal(expected);
  });
});
