import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

/** A static file of the reference page: its bytes, gzipped once, and a content hash for its URL. */
export interface DocsAsset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  hash: string;
}

const BUNDLE = 'redoc.standalone.js';

// The one address of another origin in the bundle: Redocly's logo beside "API docs by Redocly" in the menu.
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * The page makes no third-party request (offline, and the CSP would refuse it with a console error): the
 * logo's address becomes an empty data: URI, which fails to decode, and Redoc hides an image that fails.
 * Loud when an upgrade moves it, so the browser test is not the only one to notice.
 */
function withoutCdn(source: string): Buffer {
  if (source.split(CDN_LOGO).length !== 2) throw new Error(`expected ${CDN_LOGO} once in Redoc's bundle`);
  return Buffer.from(source.replace(CDN_LOGO, 'data:,'));
}

let bundle: DocsAsset | undefined;

/**
 * Redoc's standalone bundle, read from the installed npm package (no CDN) on first use: 1 MB that only
 * the /docs page needs, so an API process that never shows it never reads it. Gzipped once here (a quarter
 * of the bytes), since Koa serves it as is.
 */
function redocBundle(): DocsAsset {
  if (!bundle) {
    const body = withoutCdn(readFileSync(createRequire(import.meta.url).resolve(`redoc/bundles/${BUNDLE}`), 'utf8'));
    bundle = {
      body,
      gzipped: gzipSync(body),
      type: 'text/javascript; charset=utf-8',
      hash: createHash('sha256').update(body).digest('base64url').slice(0, 12),
    };
  }
  return bundle;
}

export function docsAsset(name: string): DocsAsset | undefined {
  return name === BUNDLE ? redocBundle() : undefined;
}

/** The bundle's URL, with its content hash so a browser may keep it until Redoc is upgraded. */
export function docsScriptUrl(): string {
  return `/docs/assets/${BUNDLE}?h=${redocBundle().hash}`;
}
