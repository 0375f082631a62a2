import { Writable } from 'node:stream';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState, MultipartForm } from '../context.js';
import { decodeRequestBody } from './request-body-decoding.js';

/** The fields' bytes formidable accepts (maxFieldsSize), and room for the parts' headers and boundaries. */
const FIELDS_BYTES = 64 * 1024;
const FRAMING_BYTES = 64 * 1024;

/**
 * multipart/form-data into `ctx.state.form`. Files stay in memory and never touch the disk (CSD private
 * keys pass through here). Over `maxFileBytes` is 413; malformed or too many parts is 400; another
 * content type is 415. A Content-Encoding is undone first (request-body-decoding.ts), up to the files'
 * and fields' bytes.
 */
export function multipartBody(options: { maxFileBytes: number; maxFiles: number }): Middleware<AppState> {
  return async (ctx, next) => {
    const type = ctx.is('multipart/form-data');
    if (type === null) throw new AppError(400, 'body_required', 'A multipart/form-data body is required.');
    if (type === false) throw new AppError(415, 'unsupported_media_type', 'Content-Type must be multipart/form-data.');
    await decodeRequestBody(ctx, options.maxFileBytes * options.maxFiles + FIELDS_BYTES + FRAMING_BYTES);
    const chunks = new Map<string, Buffer[]>();
    const parse = koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      formidable: {
        maxFileSize: options.maxFileBytes,
        maxTotalFileSize: options.maxFileBytes * options.maxFiles,
        maxFiles: options.maxFiles,
        maxFields: 20,
        maxFieldsSize: FIELDS_BYTES,
        allowEmptyFiles: false,
        minFileSize: 1,
        fileWriteStreamHandler: (file) => {
          const parts: Buffer[] = [];
          if (file) chunks.set((file as unknown as { newFilename: string }).newFilename, parts);
          return new Writable({
            write(chunk: Buffer, _enc, done) {
              parts.push(chunk);
              done();
            },
          });
        },
      },
      onError: (err) => {
        const httpCode = (err as { httpCode?: number }).httpCode;
        if (httpCode === 413 || /maxFileSize|maxTotalFileSize|exceeded/i.test(err.message)) {
          throw new AppError(413, 'payload_too_large', `A file is larger than ${options.maxFileBytes} bytes.`);
        }
        throw new AppError(400, 'malformed_request', `The multipart body could not be read: ${err.message}`);
      },
    });
    await parse(ctx, async () => {
      const form: MultipartForm = { fields: {}, files: {} };
      for (const [name, value] of Object.entries((ctx.request.body ?? {}) as Record<string, unknown>)) {
        form.fields[name] = String(Array.isArray(value) ? value[0] : value);
      }
      for (const [name, value] of Object.entries(ctx.request.files ?? {})) {
        const file = Array.isArray(value) ? value[0] : value;
        if (!file) continue;
        form.files[name] = { fileName: file.originalFilename ?? name, data: Buffer.concat(chunks.get(file.newFilename) ?? []) };
      }
      ctx.state.form = form;
      await next();
    });
  };
}
