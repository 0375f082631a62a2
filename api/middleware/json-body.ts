import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError } from '../../shared/platform/errors.js';
import { jsonBodyProblem } from '../../shared/platform/validation/json-body-shape.js';
import type { AppState } from '../context.js';
import { byteSize } from './body-size.js';
import { decodeRequestBody } from './request-body-decoding.js';

/**
 * JSON bodies (and, with `form`, application/x-www-form-urlencoded ones): 415 for another content type,
 * 400 for malformed JSON, 413 over `limit` (the last two come from the parser and are shaped by the
 * error middleware); 400 `body_required` for no body, also an empty one sent chunked (with no length to tell); 400 for a body nested too deep or holding a lone surrogate, before anything walks it.
 * A Content-Encoding is undone first (request-body-decoding.ts), within the same limit.
 */
export function jsonBody(limit: string, options: { form?: boolean } = {}): Middleware<AppState> {
  const bytes = byteSize(limit);
  const parse = koaBody({
    json: true,
    jsonLimit: bytes,
    jsonStrict: true,
    urlencoded: options.form === true,
    formLimit: bytes,
    text: false,
    multipart: false,
    // The raw text too: an empty body (sent chunked, so with no Content-Length to tell) parses as {}.
    includeUnparsed: true,
    // DELETE /v1/qrs/invoices/{uuid} carries its motive in the body.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  const accepted = options.form ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json'];
  return async (ctx, next) => {
    const type = ctx.is(accepted);
    if (type === null) throw new AppError(400, 'body_required', 'A request body is required.');
    if (type === false) {
      throw new AppError(415, 'unsupported_media_type', `Content-Type must be ${accepted.join(' or ')}.`);
    }
    await decodeRequestBody(ctx, bytes);
    await parse(ctx, async () => {
      if (type === 'application/json') refuseEmpty(ctx.request);
      refuseUnwalkable(ctx.request.body);
      await next();
    });
  };
}

/** An empty JSON body is no body, not `{}` as the parser reads it (issue #39: `{}` would have exported a whole history). */
function refuseEmpty(request: { rawBody?: unknown }): void {
  if (request.rawBody === '') throw new AppError(400, 'body_required', 'A request body is required.');
}

function refuseUnwalkable(body: unknown): void {
  const problem = jsonBodyProblem(body);
  if (problem?.kind === 'too_deep') throw new AppError(400, 'malformed_json', `The request body nests deeper than ${problem.maxDepth} levels.`);
  if (problem?.kind === 'lone_surrogate') {
    const message = `${problem.field} must not contain ${problem.codePoint}, half of a surrogate pair without the other half (not valid Unicode).`;
    throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
      details: [{ field: problem.field, code: 'invalid_character', message }],
    });
  }
}
