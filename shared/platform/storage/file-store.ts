import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { dirname, join, resolve } from 'node:path';
import type { Db } from '../db.js';

/**
 * The one storage interface for files the service keeps and serves: logos, stamped XML, invoice PDFs, export
 * ZIPs. Files are written once under a new unguessable key and never changed (an export's ZIP is removed when
 * it expires), so any backend that can put, get and delete bytes by key will do: a local directory (the default), PostgreSQL (every machine sees the same files
 * with no shared disk), or an S3-compatible bucket (s3-file-store.ts; docs/stamping.md, "Files").
 * `fileStoreFromConfig` (file-store-from-config.ts) picks one.
 */
export interface StoredFile {
  contentType: string;
  data: Buffer;
}

/** A stored file read as a stream (a large one: an export's ZIP), with its size. */
export interface StoredStream {
  contentType: string;
  size: number;
  body: Readable;
}

export interface FileStore {
  /** Stores the file under a new unguessable key and returns the key. */
  put(prefix: string, file: StoredFile, extension: string): Promise<string>;
  get(key: string): Promise<StoredFile | undefined>;
  /**
   * Stores the file at `path` (a large one, written to a temporary file first) under a new key. Disk and S3 copy
   * it without holding it in memory; PostgreSQL (a bytea, at most 1 GB) reads it whole.
   */
  putFile(prefix: string, path: string, contentType: string, extension: string): Promise<string>;
  /** The file as a stream: disk and S3 never hold it whole; PostgreSQL does (one bytea). */
  read(key: string): Promise<StoredStream | undefined>;
  /** Removes a file (an expired export's); a missing key is no error. */
  remove(key: string): Promise<void>;
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
    async putFile(prefix, path, contentType, extension) {
      return this.put(prefix, { contentType, data: await readFile(path) }, extension);
    },
    async read(key) {
      const file = await this.get(key);
      return file && { contentType: file.contentType, size: file.data.length, body: Readable.from([file.data]) };
    },
    async remove(key) {
      await db('stored_files').where({ key }).delete();
    },
  };
}

/** The types the service stores; on disk the extension carries the type. A Map: `x.constructor` is no type. */
const CONTENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['png', 'image/png'],
  ['webp', 'image/webp'],
  ['xml', 'application/xml'],
  ['pdf', 'application/pdf'],
  ['zip', 'application/zip'],
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
    async putFile(prefix, source, contentType, extension) {
      const key = newTypedKey(prefix, { contentType, data: Buffer.alloc(0) }, extension);
      const path = join(base, key);
      await mkdir(dirname(path), { recursive: true });
      const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
      await copyFile(source, partial);
      await rename(partial, path);
      return key;
    },
    async read(key) {
      const contentType = contentTypeOfKey(key);
      if (!contentType) return undefined;
      const path = join(base, key);
      try {
        const { size } = await stat(path);
        return { contentType, size, body: createReadStream(path) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async remove(key) {
      if (!contentTypeOfKey(key)) return;
      await unlink(join(base, key)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
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
