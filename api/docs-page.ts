/**
 * GET /docs: the OpenAPI document rendered as one self-contained HTML page (no scripts, no third-party
 * requests): every path, its methods, parameters, request body and responses.
 */
interface Operation {
  summary?: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { description?: string }>;
}

interface Document {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function operationHtml(method: string, path: string, op: Operation): string {
  const auth = op.security?.map((s) => Object.keys(s).join(' ')).join(', ');
  const params = (op.parameters ?? [])
    .map((p) => `<li><code>${escape(p.name)}</code> (${p.in}${p.required ? ', required' : ''})${p.description ? ` — ${escape(p.description)}` : ''}</li>`)
    .join('');
  const body = op.requestBody
    ? `<p>Body: ${Object.keys(op.requestBody.content)
        .map((t) => `<code>${escape(t)}</code>`)
        .join(', ')}</p>`
    : '';
  const responses = Object.entries(op.responses)
    .map(([code, r]) => `<li><b>${code}</b> ${escape(r.description ?? '')}</li>`)
    .join('');
  return `<section id="${escape(`${method}-${path}`)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? '')}${auth ? ` <small>(auth: ${escape(auth)})</small>` : ''}</p>${params ? `<ul>${params}</ul>` : ''}${body}<ul>${responses}</ul></section>`;
}

export function renderDocsPage(doc: Document): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => operationHtml(method, path, op)));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(doc.info.title)} — API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111}code{background:#f3f3f3;padding:0 .2em}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{font:bold 12px monospace;padding:.1em .4em;border-radius:3px;color:#fff;background:#555}
.get{background:#1565c0}.post{background:#2e7d32}.put{background:#ef6c00}.delete{background:#c62828}</style></head>
<body><h1>${escape(doc.info.title)} <small>v${escape(doc.info.version)}</small></h1>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <code>{ "error": { "code", "message", "details", "request_id" } }</code>.</p>
${ops.join('\n')}</body></html>`;
}
