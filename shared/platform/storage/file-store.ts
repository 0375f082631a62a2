import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db.js';

/**
 * The one storage interface for files the service keeps and serves: logos, stamped XML, invoice PDFs.
 * Files are written once under a new unguessable key and never changed, so any backend that can put and
 * get bytes by key will do: a local directory (the default), PostgreSQL (every machine sees the same files
 * with no shared disk), or an S3-compatible bucket (docs/stamping.md, "Files").
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

function newKey(prefix: string, extension: string): string {
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

/** The types the service stores; on disk the extension carries the type. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  webp: 'image/webp',
  xml: 'application/xml',
  pdf: 'application/pdf',
};

/** Keys as newKey() makes them: word segments and one extension, so a key from a URL never leaves the root. */
const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*\.([a-z0-9]+)$/;

export function diskFileStore(root: string): FileStore {
  const base = resolve(root);
  return {
    async put(prefix, file, extension) {
      if (CONTENT_TYPES[extension] !== file.contentType) throw new Error(`file store: ${file.contentType} is not stored as .${extension}`);
      const key = newKey(prefix, extension);
      if (!KEY.test(key)) throw new Error(`file store: unusable prefix "${prefix}"`);
      const path = join(base, key);
      await mkdir(dirname(path), { recursive: true });
      // Written aside and renamed: a reader sees the whole file or none.
      const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
      await writeFile(partial, file.data);
      await rename(partial, path);
      return key;
    },
    async get(key) {
      const extension = KEY.exec(key)?.[1];
      const contentType = extension && CONTENT_TYPES[extension];
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

export function fileStoreFromConfig(config: Pick<Config, 'fileStore' | 'fileStoreDir'>, db: Db): FileStore {
  return config.fileStore === 'postgres' ? postgresFileStore(db) : diskFileStore(config.fileStoreDir);
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
