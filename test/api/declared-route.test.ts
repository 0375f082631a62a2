import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { bearerRule } from '../../api/access/access-rules.js';
import type { RateRule } from '../../api/access/rate-rules.js';
import type { AppState } from '../../api/context.js';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { rateLimit } from '../../api/middleware/rate-limit.js';
import { requestContext } from '../../api/middleware/request-context.js';
import { openApiDocumentOf } from '../../api/openapi.js';
import { declaredRoutes } from '../../api/route-catalog.js';
import { routerOf } from '../../api/routing/api-router.js';
import { jsonRequest } from '../../api/routing/request-body.js';
import { pagedQuery } from '../../api/routing/request-query.js';
import { defineRoute } from '../../api/routing/route.js';
import { declaredOperations } from '../helpers/declared-operations.js';
import { harness } from '../helpers/harness.js';

const noteSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: { text: { type: 'string', minLength: 1 } },
} as const;

/** Three a minute per address, under a scope of this run alone. */
const noteRate: RateRule = {
  name: 'fixture-notes',
  tooMany: 'FIXTURE_NOTES: three a minute from the address',
  middleware: (deps) => rateLimit(deps.redis, [{ scope: `fixture-notes-${randomUUID()}`, perMinute: 3, key: (ctx) => ctx.ip }]),
};

/** The fixture: one operation, declared once, as a new route would be. */
const addNote = defineRoute({
  method: 'post',
  path: '/v1/fixture/boards/{boardId}/notes',
  access: bearerRule,
  rate: [noteRate],
  query: pagedQuery,
  body: jsonRequest(noteSchema),
  operationId: 'addFixtureNote',
  summary: 'Add a note to a board',
  requestBody: { required: true, content: { 'application/json': { schema: noteSchema } } },
  responses: { 201: { description: 'The note', content: { 'application/json': { schema: { type: 'object' } } } } },
  handle: () => (ctx) => {
    ctx.status = 201;
    // Typed from the declaration: the path's parameter, the access rule's state, the parsed query, the validated body.
    ctx.body = { board: ctx.params.boardId, account: ctx.state.accountId, size: ctx.state.query.size, text: ctx.state.body.text };
  },
});

describe('a route declared once (issue #42): the router, the document and the suites from one declaration', () => {
  let server: Server;
  let base: string;
  before(async () => {
    const app = new Koa<AppState>();
    app.use(requestContext(harness().deps.logger));
    app.use(errorHandler());
    app.use(routerOf(harness().deps, [addNote]).routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (body: string, headers: Record<string, string> = {}, query = '') => {
    const res = await fetch(`${base}/v1/fixture/boards/brd_1/notes${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: res.status, body: (await res.json()) as { error?: { code: string; details: { field: string }[] } } & Record<string, unknown> };
  };

  it('the router: its access rule first, its rate rule, its query parsed and its body validated before the handler, which gets the typed values', async () => {
    const account = await harness().bootstrap();
    const bearer = { Authorization: `Bearer ${account.accessToken}` };
    expect((await post('{"text":"hola"}')).status).to.equal(401);
    const invalid = await post('{"text":""}', bearer, '?size=0');
    expect(invalid.status).to.equal(400);
    expect(invalid.body.error?.code).to.equal('validation_failed');
    // The query is parsed before the body is read: its refusal comes first.
    expect(invalid.body.error?.details.map((d) => d.field)).to.deep.equal(['size']);
    const invalidBody = await post('{"text":""}', bearer);
    expect(invalidBody.body.error?.details.map((d) => d.field)).to.deep.equal(['text']);
    const added = await post('{"text":"hola"}', bearer, '?size=5');
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    expect(added.body).to.deep.equal({ board: 'brd_1', account: account.accountId, size: 5, text: 'hola' });
    // The fourth request of the minute from this address: the declared rate rule refuses it.
    const fourth = await post('{"text":"otra"}', bearer);
    expect(fourth.status).to.equal(429);
    expect(fourth.body.error?.code).to.equal('rate_limited');
  });

  it("the document: its path, operationId, the access rule's security and 401, the 429 of the access and rate rules, the path's and the query's parameters", () => {
    const document = openApiDocumentOf([...declaredRoutes(), addNote], 'https://factura.example.test');
    const operation = document.paths['/v1/fixture/boards/{boardId}/notes']?.post as {
      operationId: string;
      security: unknown[];
      parameters: { name: string; in: string }[];
      responses: Record<string, { description: string }>;
    };
    expect(operation.operationId).to.equal('addFixtureNote');
    expect(operation.security).to.deep.equal([{ Bearer: [] }]);
    expect(operation.parameters.map((p) => `${p.in} ${p.name}`)).to.deep.equal(['path boardId', 'query page', 'query size']);
    expect(Object.keys(operation.responses)).to.have.members(['201', '401', '429']);
    expect(operation.responses['401']!.description).to.equal('Token invalid');
    expect(operation.responses['429']!.description).to.contain('MANAGEMENT_RATE_PER_IP').and.contain('FIXTURE_NOTES');
    // Without the fixture the document does not have it: it comes from the declaration alone.
    expect(openApiDocumentOf(declaredRoutes(), 'https://factura.example.test').paths).to.not.have.property('/v1/fixture/boards/{boardId}/notes');
  });

  it('the route lists the route-spellings and hostile-client suites walk', () => {
    const operations = declaredOperations([...declaredRoutes(), addNote]);
    expect(operations).to.deep.include({
      method: 'POST',
      template: '/v1/fixture/boards/{boardId}/notes',
      access: 'bearer',
      hasBody: true,
      isPublic: false,
      operationId: 'addFixtureNote',
    });
    expect(declaredOperations().map((op) => op.template)).to.not.include('/v1/fixture/boards/{boardId}/notes');
  });
});
