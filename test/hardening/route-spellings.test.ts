import type { Server } from 'node:http';
import { expect } from 'chai';
import { accessOf } from '../../api/access/access.js';
import { apiRouters, createApp } from '../../api/app.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { declaredOperations } from '../helpers/declared-operations.js';
import { harness } from '../helpers/harness.js';

interface RouteCase {
  method: string;
  path: string;
  access: string;
}

/** Every declared route (the declarations, not a hand list), with a value for each parameter. */
function registeredRoutes(): RouteCase[] {
  return declaredOperations().map((op) => ({ method: op.method, path: op.template.replace(/\{(\w+)\}/g, 'x$1'), access: op.access }));
}

/** What the routers hold, walked layer by layer: method, path (as a template) and the access rule in front. */
function routerLayers(): (RouteCase | string)[] {
  return apiRouters(harness().deps).flatMap((router) =>
    router.stack.flatMap((layer) => {
      const access = accessOf(layer.stack[0]);
      if (layer.methods.length === 0) return [`${String(layer.path)}: a router-level use() guards by prefix, not by route`];
      const path = String(layer.path).replace(/:(\w+)/g, 'x$1');
      return layer.methods.filter((m) => m !== 'HEAD').map((method) => (access === undefined ? `${method} ${path} has no access rule first` : { method, path, access }));
    }),
  );
}

/** The path with its static segments' letters re-cased (parameter values left alone). */
function recased(path: string, change: (segment: string) => string): string {
  return path
    .split('/')
    .map((segment) => (/^x[a-zA-Z]+$/.test(segment) ? segment : change(segment)))
    .join('/');
}

function spellings(path: string): string[] {
  const variants = [
    recased(path, (s) => s.toUpperCase()),
    recased(path, (s) => s.charAt(0).toUpperCase() + s.slice(1)),
    recased(path, (s) => s.replace(/[a-z](?=[^a-z]*$)/, (c) => c.toUpperCase())),
    path === '/' ? '//' : `${path}/`,
    path.replace(/^\//, '//'),
    path.replace(/\/(?=[^/]*$)/, '//'),
  ];
  return [...new Set(variants)].filter((v) => v !== path);
}

describe('issue #28: every spelling of every route', () => {
  let server: Server;
  let base: string;
  before(async () => {
    // The ops pages on, so their routes are walked too.
    const config = { ...harness().deps.config, adminPasswordHash: await hashAdminPassword('a long operator password') };
    server = createApp({ ...harness().deps, config }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function answer(method: string, path: string): Promise<{ status: number; code: string | undefined }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : '{}',
    });
    const body = (res.headers.get('content-type') ?? '').includes('json') ? ((await res.json()) as { error?: { code: string } }) : undefined;
    return { status: res.status, code: body?.error?.code };
  }

  it('the routers hold the declared routes and nothing else, each with its access rule first; no router guards by prefix', () => {
    expect(routerLayers()).to.deep.equal(registeredRoutes());
    const routes = registeredRoutes();
    expect(routes.length).to.be.greaterThan(50);
    const byAccess = new Set(routes.map((r) => r.access));
    expect([...byAccess].sort()).to.deep.equal(['api-key', 'api-key-or-bearer', 'bearer', 'client-credentials', 'metrics-token', 'operator', 'public', 'signed-link']);
  });

  it('without credentials, a guarded route answers 401 in its own spelling', async () => {
    // A signed link is its own credential: without one it is 403 (test/api/invoice-files.test.ts, invoice-exports.test.ts).
    const guarded = registeredRoutes().filter((r) => !['public', 'client-credentials', 'signed-link'].includes(r.access));
    for (const route of guarded) {
      const { status, code } = await answer(route.method, route.path);
      expect(status, `${route.method} ${route.path}`).to.equal(401);
      expect(code).to.equal('unauthorized');
    }
  });

  it('any other spelling (case, trailing or doubled slash) reaches no handler: 401 or 404, never 5xx', async () => {
    let walked = 0;
    for (const route of registeredRoutes()) {
      for (const spelling of spellings(route.path)) {
        const { status, code } = await answer(route.method, spelling);
        walked++;
        // 401: the spelling is another route's (e.g. /v1/qrs/Issuers is GET /v1/qrs/{qrId}), whose access refused it.
        expect([401, 404], `${route.method} ${spelling} → ${status} ${code}`).to.include(status);
        if (status === 404) expect(code, `${route.method} ${spelling}`).to.equal('route_not_found');
      }
    }
    expect(walked).to.be.greaterThan(250);
  });

  it("the probe's own requests: /V1/qrs/issuers, /v1/qrs/Merchants/{id}, /v1/webhooks/ENDPOINTS, the queue dashboard", async () => {
    expect((await answer('GET', '/V1/qrs/issuers')).status).to.equal(404);
    expect((await answer('GET', '/v1/qrs/Merchants/mer_1')).status).to.be.oneOf([401, 404]);
    expect((await answer('PUT', '/v1/qrs/Merchants/mer_1/status/inactive')).status).to.equal(404);
    expect((await answer('GET', '/v1/webhooks/ENDPOINTS')).status).to.equal(404);
    expect((await answer('GET', '/ADMIN/queues')).status).to.equal(404);
    expect((await answer('GET', '/admin/queues/api/queues')).status).to.equal(401);
    expect((await answer('GET', '/Admin/Queues/api/queues')).status).to.equal(404);
  });
});
