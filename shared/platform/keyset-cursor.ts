/**
 * Keyset pagination for the lists that grow without bound (a merchant's QRs and CFDIs, issue #32): a page is
 * the rows strictly after the last row of the page before, in (timestamp, id) order, so rows added while a
 * client walks the pages are neither skipped nor repeated, and a page costs one index range at any depth
 * (no OFFSET, no count). The cursor is that last row's key, opaque to clients: base64url of a small JSON.
 * It grants nothing: the query keeps every scope and filter of the request, so an edited cursor only moves
 * the position within what the caller may read anyway.
 */
import { AppError } from './errors.js';

/** A row's place in a newest-first list: its timestamp as PostgreSQL holds it (microseconds, UTC) and its id. */
export interface Keyset {
  at: string;
  id: string;
}

/** The cursor page envelope: no total (a count of millions of rows is not cheap), the next cursor or null at the end. */
export interface CursorPage<T> {
  content: T[];
  size: number;
  next_cursor: string | null;
}

export const CURSOR_PAGE = { size: 20, maxSize: 100 } as const;

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[a-z_]{2,12}[A-Za-z0-9_-]{1,40}$/;

export function encodeCursor(key: Keyset): string {
  return Buffer.from(JSON.stringify({ v: 1, at: key.at, id: key.id })).toString('base64url');
}

function malformed(): AppError {
  return new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
    details: [{ field: 'cursor', code: 'invalid_format', message: 'cursor must be the next_cursor of an earlier page, unchanged.' }],
  });
}

/** The key a cursor names; 400 `validation_failed` (field `cursor`) for anything an earlier page did not give. */
export function decodeCursor(cursor: string): Keyset {
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed();
  const { v, at, id } = parsed as Record<string, unknown>;
  if (v !== 1 || typeof at !== 'string' || typeof id !== 'string' || !AT.test(at) || !ID.test(id) || Number.isNaN(Date.parse(at))) throw malformed();
  return { at, id };
}

/** The envelope of a page fetched with one row more than asked: that extra row says whether a next page exists. */
export function cursorPageOf<R extends { key: Keyset }, T>(rows: R[], size: number, view: (row: R) => T): CursorPage<T> {
  const page = rows.slice(0, size);
  const last = page.at(-1);
  return { content: page.map(view), size, next_cursor: rows.length > size && last ? encodeCursor(last.key) : null };
}
