import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Db } from '../db.js';

/**
 * The one storage interface for files the service keeps and serves: logos, stamped XML, invoice PDFs.
 * Files are written once under a new unguessable key and never changed, so any backend that can put and
 * get bytes by key will do: a local directory (the default), PostgreSQL (every machine sees the same files
 * with no shared disk), or an S3-compatible bucket (s3-file-store.ts; docs/stamping.md, "Files").
 * `fileStoreFromConfig` (file-store-from-config.ts) picks one.
 */
export interface StoredFile {
  contentType: string;
  data: Buffer;
}

export interface FileStore {
  /** Stores the file under a new unguessable key and returns the key. */
  put(prefix: string, file: StoredFile, extension: string): Promise<string>;
  get(key: string): Promise<StoredFile | undefined>;
}

/** The one way keys are made: a caller's prefix, 128 random bits, the extension. */
export function newKey(prefix: string, extension: string): string {
  return `${prefix}/${randomBytes(16).toString('base64url')}.${extension}`;
}

export function postgresFileStore(db: Db): FileStore {
  return {
    async put(prefix, file, extension) {
      const key = newKey(prefix, extension);
      await db('stored_files').insert({ key, content_type: file.contentType, data: file.data });
      return key;
    },
    async get(key) {
      const row = (await db('stored_files').where({ key }).first('content_type', 'data')) as { content_type: string; data: Buffer } | undefined;
      return row && { contentType: row.content_type, data: row.data };
    },
  };
}

/** The types the service stores; on disk the extension carries the type. A Map: `x.constructor` is no type. */
const CONTENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['png', 'image/png'],
  ['webp', 'image/webp'],
  ['xml', 'application/xml'],
  ['pdf', 'application/pdf'],
]);

/** Keys as newKey() makes them: word segments and one extension, so a key from a URL never leaves the root. */
const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*\.([a-z0-9]+)$/;

/**
 * newKey() for a store that derives a file's type from its key (disk) or must never be handed a key that
 * escapes the scheme (a bucket): refuses a type stored under another extension, and a prefix outside KEY.
 */
export function newTypedKey(prefix: string, file: StoredFile, extension: string): string {
  if (CONTENT_TYPES.get(extension) !== file.contentType) throw new Error(`file store: ${file.contentType} is not stored as .${extension}`);
  const key = newKey(prefix, extension);
  if (!KEY.test(key)) throw new Error(`file store: unusable prefix "${prefix}"`);
  return key;
}

/** The type of a file under `key`, or undefined for a key newTypedKey() never makes (one from a URL can be anything). */
export function contentTypeOfKey(key: string): string | undefined {
  const extension = KEY.exec(key)?.[1];
  return extension ? CONTENT_TYPES.get(extension) : undefined;
}

export function diskFileStore(root: string): FileStore {
  const base = resolve(root);
  return {
    async put(prefix, file, extension) {
      const key = newTypedKey(prefix, file, extension);
      const path = join(base, key);
      await mkdir(dirname(path), { recursive: true });
      // Written aside and renamed: a reader sees the whole file or none.
      const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
      await writeFile(partial, file.data);
      await rename(partial, path);
      return key;
    },
    async get(key) {
      const contentType = contentTypeOfKey(key);
      if (!contentType) return undefined;
      try {
        return { contentType, data: await readFile(join(base, key)) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
  };
}

/** Public URL of a stored file. */
export function fileUrl(publicBaseUrl: string, key: string): string {
  return `${publicBaseUrl}/v1/public/files/${key}`;
}

/** The storage key behind a URL made by fileUrl(), or undefined for any other URL. */
export function fileKeyFromUrl(publicBaseUrl: string, url: string | null): string | undefined {
  const prefix = `${publicBaseUrl}/v1/public/files/`;
  return url?.startsWith(prefix) ? url.slice(prefix.length) : undefined;
}
