/**
 * Keyset pagination for the lists that grow without bound (a merchant's QRs and CFDIs, issue #32): a page is
 * the rows strictly after the last row of the page before, in (timestamp, id) order, so rows added while a
 * client walks the pages are neither skipped nor repeated, and a page costs one index range at any depth
 * (no OFFSET, no count). The cursor is that last row's key, opaque to clients: base64url of a small JSON and a
 * MAC under URL_SIGNING_KEY over it and the list it pages (issue #39), so a cursor is exactly what an earlier
 * page of that list gave: a made-up row, a moved time or an extra field is 400, never a query. It grants
 * nothing either way: the query keeps every scope and filter of the request.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';
import { hmacKey } from './crypto/hmac-key.js';

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

/** Which list a cursor pages, and the key that signs it: a cursor of one list is refused by another. */
export interface CursorSigning {
  list: 'qrs' | 'invoices';
  key: string;
}

export const CURSOR_PAGE = { size: 20, maxSize: 100 } as const;

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[a-z_]{2,12}[A-Za-z0-9_-]{1,40}$/;
const CURSOR = /^([A-Za-z0-9_-]{1,160})\.([A-Za-z0-9_-]{22})$/;

function mac(payload: string, signing: CursorSigning): string {
  return createHmac('sha256', hmacKey(signing.key)).update(`cursor.${signing.list}.${payload}`).digest().subarray(0, 16).toString('base64url');
}

export function encodeCursor(key: Keyset, signing: CursorSigning): string {
  const payload = Buffer.from(JSON.stringify({ at: key.at, id: key.id })).toString('base64url');
  return `${payload}.${mac(payload, signing)}`;
}

function malformed(): AppError {
  return new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
    details: [{ field: 'cursor', code: 'invalid_format', message: 'cursor must be the next_cursor of an earlier page of this list, unchanged.' }],
  });
}

/** A real moment, written as PostgreSQL writes it: `2026-02-30T…` is not one (JavaScript would roll it into March). */
function isMoment(at: string): boolean {
  const ms = Date.parse(at);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 23) === at.slice(0, 23);
}

/** The key a cursor names; 400 `validation_failed` (field `cursor`) for anything an earlier page of the list did not give. */
export function decodeCursor(cursor: string, signing: CursorSigning): Keyset {
  const parts = CURSOR.exec(cursor);
  if (!parts) throw malformed();
  const [, payload, presented] = parts as unknown as [string, string, string];
  const expected = Buffer.from(mac(payload, signing), 'ascii');
  if (!timingSafeEqual(Buffer.from(presented, 'ascii'), expected)) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof parsed !== 'object' || parsed === null || Object.keys(parsed).length !== 2) throw malformed();
  const { at, id } = parsed as Record<string, unknown>;
  if (typeof at !== 'string' || typeof id !== 'string' || !AT.test(at) || !ID.test(id) || !isMoment(at)) throw malformed();
  return { at, id };
}

/** The envelope of a page fetched with one row more than asked: that extra row says whether a next page exists. */
export function cursorPageOf<R extends { key: Keyset }, T>(rows: R[], size: number, view: (row: R) => T, signing: CursorSigning): CursorPage<T> {
  const page = rows.slice(0, size);
  const last = page.at(-1);
  return { content: page.map(view), size, next_cursor: rows.length > size && last ? encodeCursor(last.key, signing) : null };
}
