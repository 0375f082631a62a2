import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../context.js';

/**
 * JSON bodies only: 415 for another content type, 400 for malformed JSON, 413 over `limit`
 * (the last two come from the parser and are shaped by the error middleware).
 */
export function jsonBody(limit: string): Middleware<AppState> {
  const parse = koaBody({ json: true, jsonLimit: limit, jsonStrict: true, urlencoded: false, text: false, multipart: false });
  return async (ctx, next) => {
    const type = ctx.is('application/json');
    if (type === null) throw new AppError(400, 'body_required', 'A JSON request body is required.');
    if (type === false) {
      throw new AppError(415, 'unsupported_media_type', 'Content-Type must be application/json.');
    }
    await parse(ctx, next);
  };
}
