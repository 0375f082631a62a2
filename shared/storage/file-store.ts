import { randomBytes } from 'node:crypto';
import type { Db } from '../db.js';

/**
 * The one storage interface for files the service keeps and serves (logos now; XML and PDF later).
 * Backed by PostgreSQL: every process sees the same files and a backup holds them; an object store
 * can implement the same interface when volume asks for it.
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

export function postgresFileStore(db: Db): FileStore {
  return {
    async put(prefix, file, extension) {
      const key = `${prefix}/${randomBytes(16).toString('base64url')}.${extension}`;
      await db('stored_files').insert({ key, content_type: file.contentType, data: file.data });
      return key;
    },
    async get(key) {
      const row = (await db('stored_files').where({ key }).first('content_type', 'data')) as { content_type: string; data: Buffer } | undefined;
      return row && { contentType: row.content_type, data: row.data };
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
