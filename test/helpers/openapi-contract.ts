import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { openApiDocument } from '../../api/route-catalog.js';

type Schema = Record<string, unknown>;
export interface MediaType {
  schema?: Schema;
  example?: unknown;
}
export interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** The document as GET /openapi.json serves it (a JSON copy, so nothing here can touch the API's own). */
export const DOCUMENT = JSON.parse(JSON.stringify(openApiDocument('https://factura.example.test'))) as Document;

/**
 * A component reference replaced by the component itself (their `$id`s dropped), so one fresh JSON Schema
 * 2020-12 validator needs nothing else; our components have no cycles.
 */
function inline(schema: unknown, doc: Document): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc));
  if (schema === null || typeof schema !== 'object') return schema;
  const { $ref, $id: _id, ...rest } = schema as Schema;
  if (typeof $ref === 'string') {
    const name = $ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`no component ${name}`);
    return inline(target, doc);
  }
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, doc)]));
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajvFormats.default.default(ajv, ['date-time', 'uuid', 'email', 'uri']);
// OpenAPI's own formats: how a form's file part and a password field are shown, not constraints on a string.
ajv.addFormat('binary', true);
ajv.addFormat('password', true);
const compiled = new WeakMap<object, ValidateFunction>();

/** A validator of the document's schema (references resolved). */
export function validatorOf(schema: Schema, doc: Document = DOCUMENT): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(inline(schema, doc) as Schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of the document, with its method and path. */
export function operations(doc: Document = DOCUMENT): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op })),
  );
}

// Literal segments before templated ones: /v1/qrs/issuers is not /v1/qrs/{qrId}.
const templates = operations()
  .map(({ path }) => path)
  .filter((p, i, all) => all.indexOf(p) === i)
  .map((path) => ({ path, params: (path.match(/\{/g) ?? []).length, pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
  .sort((a, b) => a.params - b.params);

/** The documented path a request path matches (query string ignored), if any. */
export function templateOf(url: string): string | undefined {
  const path = url.split('?')[0]!;
  return templates.find((t) => t.pattern.test(path))?.path;
}

/** What is wrong with a JSON answer, judged by the document's schema for its operation and status; undefined when it conforms. */
export function nonConformity(method: string, url: string, status: number, body: unknown): string | undefined {
  // bull-board brings its own routes, outside the contract (api/app.ts).
  if (url.startsWith('/admin/queues')) return undefined;
  const path = templateOf(url);
  const op = path ? DOCUMENT.paths[path]?.[method.toLowerCase()] : undefined;
  if (!op) {
    // An unknown route or method still answers the error object.
    const validate = validatorOf(DOCUMENT.components.schemas.Error!);
    return status >= 400 && validate(body) ? undefined : `${method} ${url} ${status}: no such operation in the document`;
  }
  const response = op.responses[String(status)];
  if (!response) return `${method} ${path} ${status}: status not documented`;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return `${method} ${path} ${status}: JSON answer, but no JSON schema documented`;
  const validate = validatorOf(schema);
  return validate(body) ? undefined : `${method} ${path} ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
}
