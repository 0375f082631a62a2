import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page's two static files, read once; their URLs carry a content hash so phones may cache them forever. */
export interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

const here = dirname(fileURLToPath(import.meta.url));

function load(name: string, type: string): Asset {
  const body = readFileSync(join(here, name));
  return { body, type, hash: createHash('sha256').update(body).digest('base64url').slice(0, 12) };
}

const ASSETS: Record<string, Asset> = {
  'buyer-page.css': load('buyer-page.css', 'text/css; charset=utf-8'),
  'buyer-page.js': load('buyer-page.js', 'text/javascript; charset=utf-8'),
};

export function buyerAsset(name: string): Asset | undefined {
  return Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
}

export function assetUrl(name: string): string {
  return `/q/assets/${name}?h=${ASSETS[name]?.hash ?? ''}`;
}
