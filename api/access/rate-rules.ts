import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { rateLimit, shortCodeRateLimit } from '../middleware/rate-limit.js';
import { shortCodeLookups } from '../buyer/further-tickets.js';

type Ctx = Parameters<Middleware<AppState>>[0];

/**
 * A route's rate rule as a route declares it: the counters it enforces (built from the API's deps) and what
 * the OpenAPI document's 429 says of them. A rule that counts what the body says runs right after the body
 * parser; the others before any body is read.
 */
export interface RateRule {
  readonly name: string;
  /** Which limit refuses, for the document's 429. */
  readonly tooMany: string;
  /** Counts what the body says: placed right after the body parser, before the body is validated. */
  readonly readsBody?: boolean;
  middleware(deps: ApiDeps): Middleware<AppState>;
}

const token = (t: unknown): string | undefined => (typeof t === 'string' ? t.slice(0, 64) : undefined);
const bodyField = (ctx: Ctx, name: string): unknown => (ctx.request.body as Record<string, unknown> | undefined)?.[name];

/** The buyer's routes: per client IP, and per QR when its link is in the query (an offline ticket's by its signature `m`). */
export const publicLinkRate: RateRule = {
  name: 'public-link',
  tooMany: 'PUBLIC_RATE_PER_IP requests a minute from the address, PUBLIC_RATE_PER_TOKEN for the QR',
  middleware: (deps) =>
    rateLimit(deps.redis, [
      { scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip },
      { scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => token(ctx.query.t) ?? token(ctx.query.m) },
    ]),
};

/** A JSON body's link is known only once parsed: its per-QR count (the same counter as publicLinkRate's). */
export const publicBodyLinkRate: RateRule = {
  name: 'public-body-link',
  tooMany: "PUBLIC_RATE_PER_TOKEN for the body's QR",
  readsBody: true,
  middleware: (deps) =>
    rateLimit(deps.redis, [{ scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => (ctx.query.t === undefined ? token(bodyField(ctx, 't')) : undefined) }]),
};

/** Each further ticket the body names by its short code is a code lookup, counted like the page's code form. */
export const furtherTicketLookupRate: RateRule = {
  name: 'further-ticket-lookups',
  tooMany: 'PUBLIC_CODE_RATE_PER_IP short-code lookups a minute from the address (each further ticket named by its code is one)',
  readsBody: true,
  middleware: (deps) =>
    shortCodeRateLimit(deps, (ctx) => {
      const tickets = bodyField(ctx, 'additional_tickets');
      return Array.isArray(tickets) ? shortCodeLookups(tickets) : 0;
    }),
};

/** A short code typed from a ticket: codes are found by guessing, so few per address. */
export const shortCodeRate: RateRule = {
  name: 'short-code',
  tooMany: 'PUBLIC_CODE_RATE_PER_IP short-code lookups a minute from the address',
  middleware: (deps) => shortCodeRateLimit(deps),
};

/** Per client IP alone, before the body is read. */
export const publicIpRate: RateRule = {
  name: 'public-ip',
  tooMany: 'PUBLIC_RATE_PER_IP requests a minute from the address',
  middleware: (deps) => rateLimit(deps.redis, [{ scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip }]),
};

/** An offline ticket's link in the body, counted by its signature (`m`) as on its page. */
export const offlineLinkRate: RateRule = {
  name: 'offline-link',
  tooMany: "PUBLIC_RATE_PER_TOKEN for the body's ticket",
  readsBody: true,
  middleware: (deps) => rateLimit(deps.redis, [{ scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => token(bodyField(ctx, 'm')) }]),
};

/** A link needs no credentials, so whoever holds it could pull a large file without end (issue #39). */
export const exportDownloadRate: RateRule = {
  name: 'export-download',
  tooMany: 'PUBLIC_RATE_PER_IP requests a minute from the address, EXPORT_DOWNLOADS_PER_MINUTE for the export',
  middleware: (deps) =>
    rateLimit(deps.redis, [
      { scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip },
      { scope: 'export', perMinute: deps.config.exportDownloadsPerMinute, key: (ctx) => ctx.path.slice(-48) },
    ]),
};
