import { openApiDocument } from '../../api/route-catalog.js';

/** The file holding the document as served before the routes were declared once (issue #42). */
export const OPENAPI_SNAPSHOT_FILE = new URL('../fixtures/openapi-document.json', import.meta.url);

/** One fixed day and base URL: the document's examples carry dates relative to the day served. */
const AS_OF = new Date('2026-11-27T12:00:00Z');

/** A JSON value with every object's keys sorted: the document compared for content, not for the order paths were written in. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The served document normalised (JSON round trip, keys sorted, 2-space indentation), as the snapshot holds it. */
export function normalisedDocument(): string {
  return `${JSON.stringify(sortedKeys(JSON.parse(JSON.stringify(openApiDocument('https://factura.example.test', AS_OF)))), null, 2)}\n`;
}

// `tsx test/helpers/openapi-snapshot.ts` rewrites the snapshot: only for a change to the document that is meant.
if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(OPENAPI_SNAPSHOT_FILE, normalisedDocument());
}
