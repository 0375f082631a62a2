/**
 * GET /docs: the interactive API reference. Redoc's standalone bundle, served by this service from the
 * npm package (api/docs-assets.ts), renders GET /openapi.json in the browser: every field with its type,
 * required mark, enum and example, request and response samples, the auth schemes. Nothing comes from
 * another origin, so the page works offline.
 */

/** Redoc's options, as attributes of its element (https://redocly.com/docs/redoc/config). */
const REDOC_ATTRIBUTES: Record<string, string> = {
  'spec-url': '/openapi.json',
  // Show what a field is before it needs a click: required first, success answers open, samples unfolded.
  'required-props-first': 'true',
  'expand-responses': '200,201,202',
  'json-sample-expand-level': '4',
  'show-object-schema-examples': 'true',
  'hide-hostname': 'true',
};

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML shell: Redoc's element and its script, nothing inline. `nonce` is this answer's CSP script nonce. */
export function renderDocsPage(page: { title: string; scriptUrl: string; nonce: string }): string {
  const attributes = Object.entries(REDOC_ATTRIBUTES)
    .map(([name, value]) => `${name}="${escape(value)}"`)
    .join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(page.title)} — API reference</title><link rel="icon" href="data:,"></head>
<body><redoc ${attributes}></redoc>
<noscript>The reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</noscript>
<script nonce="${escape(page.nonce)}" src="${escape(page.scriptUrl)}"></script></body></html>`;
}

/**
 * The page's Content-Security-Policy, as narrow as Redoc allows. Scripts: only the one tag carrying this
 * answer's nonce. `worker-src blob:`: the search index Redoc builds in a worker it starts from a Blob.
 * `style-src 'unsafe-inline'`: Redoc's styled-components and its scrollbar CSS insert <style> elements as the
 * bundle loads, before any nonce could reach them; styles cannot run code, and the page holds no secret
 * that a style could leak. `connect-src 'self'`: it fetches /openapi.json. Images: here or data: URIs.
 */
export function docsPageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    'worker-src blob:',
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
