import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { brotliDecompress, unzip, type ZlibOptions, type BrotliOptions } from 'node:zlib';
import type { ParameterizedContext } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import { payloadTooLarge } from './body-size.js';

type Decoder = (input: Buffer, options: ZlibOptions & BrotliOptions, done: (err: Error | null, output: Buffer) => void) => void;

/** gzip and deflate both through `unzip`, which tells a gzip header from a zlib one (as the parsers did). */
const DECODERS: Record<string, Decoder> = { gzip: unzip, deflate: unzip, br: brotliDecompress };

/**
 * The one place a request body's Content-Encoding is undone, before any body parser (JSON, form, multipart)
 * reads it: the compressed body is read whole, up to `limit` bytes, then decoded in one call that stops at
 * `limit` decoded bytes; the parser gets the decoded bytes as a plain body. 415 for an encoding other than
 * gzip, deflate, br or identity; 400 `malformed_request` for a body that is not what its encoding says or is
 * cut short; 413 over the limit, compressed or decoded.
 *
 * Why not the parsers' own decoding (co-body pipes the request into a zlib stream): when the parser gave up
 * early (a body decoding past its limit) it stopped listening to that stream, and the stream's later error (the
 * truncated end) was uncaught and took the process down. Here no decoder outlives the call that owns it.
 */
export async function decodeRequestBody(ctx: ParameterizedContext<AppState>, limit: number): Promise<void> {
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  if (encoding === 'identity') return;
  const decoder = DECODERS[encoding];
  if (!decoder) {
    throw new AppError(415, 'unsupported_media_type', `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send gzip, deflate, br or identity.`);
  }
  const compressed = await readBody(ctx.req, limit);
  const decoded = await new Promise<Buffer>((resolve, reject) => {
    decoder(compressed, { maxOutputLength: limit }, (err, output) => {
      if (!err) resolve(output);
      else if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(payloadTooLarge(limit));
      else reject(new AppError(400, 'malformed_request', `The request body could not be decompressed as its Content-Encoding (${encoding}) says.`));
    });
  });
  ctx.req = identityRequest(ctx.req, decoded);
}

/** The request's body bytes; 413 past `limit` (then the rest is left unread), 400 if the client went away mid-body. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(payloadTooLarge(limit));
  if (req.readableEnded || req.destroyed) return Promise.reject(incomplete());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (error?: AppError) => {
      req.off('data', onData).off('end', onEnd).off('aborted', onGone).off('error', onGone).off('close', onGone);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) settle(payloadTooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => settle();
    const onGone = () => settle(incomplete());
    req.on('data', onData).on('end', onEnd).on('aborted', onGone).on('error', onGone).on('close', onGone);
  });
}

function incomplete(): AppError {
  return new AppError(400, 'malformed_request', 'The request body was incomplete.');
}

/**
 * The decoded body as the request the parsers read: the same headers without Content-Encoding and with the
 * decoded length. co-body (raw-body) and formidable use only the headers and the readable stream.
 */
function identityRequest(original: IncomingMessage, body: Buffer): IncomingMessage {
  const headers: IncomingHttpHeaders = { ...original.headers, 'content-length': String(body.length) };
  delete headers['content-encoding'];
  const stream = new Readable({ read() {} });
  stream.push(body);
  stream.push(null);
  return Object.assign(stream, { headers, method: original.method, url: original.url, httpVersion: original.httpVersion }) as unknown as IncomingMessage;
}
