// The ceiling POST /v1/qrs is measured against: a Koa route that only parses and validates the same body.
import Koa from 'koa';
import { Router } from '@koa/router';
import { koaBody } from 'koa-body';
import { parseQrCreateRequest } from '../api/qrs/parse-qr-request.js';

const app = new Koa();
const router = new Router();
router.post('/v1/qrs', koaBody({ jsonLimit: '256kb' }), (ctx) => {
  const request = parseQrCreateRequest(ctx.request.body, new Date());
  ctx.status = 201;
  ctx.body = { ok: true, sale_id: request.sale_id };
});
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
