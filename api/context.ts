import type { DefaultState } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Logger } from '../shared/platform/logger.js';
import type { ApiKeyPrincipal } from '../shared/repositories/api-keys.js';

/** What middleware puts on `ctx.state` for the handlers after it. */
export interface AppState extends DefaultState {
  requestId: string;
  log: Logger;
  apiKey?: ApiKeyPrincipal;
  /** Set by the api-key rule: the presented key's id (a prefix of its SHA-256, no secret), naming its counters and caches. */
  presentedKeyId?: string;
  /** Set by the api-key rule: what its Redis round trip read for the route, by key (null: no such key); a key Redis did not answer is absent. */
  prefetched?: ReadonlyMap<string, string | null>;
  /** Set by bearer authentication: the account every management route is scoped to. */
  accountId?: string;
  /** Set by multipartBody. */
  form?: MultipartForm;
  /** Set by the router once the route's declared JSON body passed its validation (api/routing/api-router.ts). */
  body?: unknown;
  /** Set by the router from the route's declared query (api/routing/api-router.ts). */
  query?: unknown;
  /** Set by the signed-link rule: what the link names. */
  signedLink?: unknown;
}

export type AppContext = RouterContext<AppState>;

/** A file of a multipart/form-data request, held in memory (CSD private keys pass through it). */
export interface UploadedFile {
  fileName: string;
  data: Buffer;
}

/** A multipart/form-data body as `ctx.state.form` (api/middleware/multipart-body.ts). */
export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
}
