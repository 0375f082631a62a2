import type { Middleware } from 'koa';
import { AppError, isAppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import { dependencyUnavailable } from './dependency-unavailable.js';
import { payloadTooLarge } from './body-size.js';

interface HttpLikeError {
  /** PostgreSQL SQLSTATE. (A body's Content-Encoding is undone, and its errors answered, in request-body-decoding.ts.) */
  code?: unknown;
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
  /** raw-body: the limit in bytes an `entity.too.large` body went over. */
  limit?: unknown;
}

/** Errors thrown by the body parser (co-body / raw-body) and Koa itself, as our error object. */
function fromHttpError(err: HttpLikeError): AppError | undefined {
  // raw-body reports a client that went away mid-body as a 500; it is the client's doing, not ours.
  if (err.type === 'stream.not.readable') return new AppError(400, 'malformed_request', 'The request body was incomplete.');
  // A NUL character (or another byte PostgreSQL text cannot hold) in an id, a query or a JSON string:
  // invalid_byte_sequence / untranslatable_character. Only client input carries them.
  if (err.code === '22021' || err.code === '22P05') {
    return new AppError(400, 'malformed_request', 'The request contains a character the service does not accept (NUL).');
  }
  // invalid_text_representation: client text PostgreSQL cannot read as its column's type, e.g. a lone
  // surrogate escape (\ud800) in a jsonb value (issue #28; the body check refuses those first).
  if (err.code === '22P02') {
    return new AppError(400, 'malformed_request', 'The request contains a value the service cannot store (invalid text).');
  }
  const status = err.status ?? err.statusCode;
  if (!status || status < 400 || status >= 500) return undefined;
  // koa-body 8 rethrows JSON.parse's SyntaxError with status 400 and no `type`.
  if (err instanceof SyntaxError) return new AppError(400, 'malformed_json', 'The request body is not valid JSON.');
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'malformed_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return payloadTooLarge(err.limit);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'unsupported_media_type', 'The request body encoding is not supported; send UTF-8 JSON.');
    case 'request.size.invalid':
    case 'request.aborted':
      return new AppError(400, 'malformed_request', 'The request body was incomplete.');
    default:
      return new AppError(status, status === 404 ? 'not_found' : 'bad_request', err.expose && err.message ? err.message : 'The request could not be processed.');
  }
}

/**
 * The one error middleware: every 4xx/5xx of every route answers
 * `{ error: { code, message, details, request_id } }`. Unexpected errors are logged once, with the
 * request id, and their message is hidden from the client.
 */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    let error: AppError | undefined;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        error = new AppError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`);
      } else if (ctx.status === 405 && ctx.body === undefined) {
        error = new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}.`);
      }
    } catch (err) {
      error = isAppError(err) ? err : (fromHttpError(err as HttpLikeError) ?? dependencyUnavailable(err));
      if (!error || error.status >= 500) {
        ctx.state.log.error({ err }, 'request failed');
      }
      error ??= new AppError(500, 'internal_error', 'Internal error', { expose: false, cause: err });
    }
    if (!error) return;
    ctx.status = error.status;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.body = {
      error: {
        code: error.code,
        message: error.expose ? error.message : 'An unexpected error occurred; quote the request_id to support.',
        details: error.details,
        request_id: ctx.state.requestId,
        ...error.extra,
      },
    };
  };
}
