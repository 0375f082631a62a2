import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';

interface Entry {
  principal: ApiKeyPrincipal;
  generation: string;
  storedAt: number;
}

export interface PrincipalCacheOptions {
  /** Entries kept, least recently used dropped first. */
  maxEntries?: number;
  /** An entry older than this is read again from PostgreSQL: the bound on staleness if an invalidation was lost. */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * One API process's API-key principals, by the SHA-256 of the presented key (never the key itself), each
 * with the principal generation (shared/platform/principal-generation.ts) Redis held when it was read. An
 * entry is answered only for the generation read in the asking request: a change anywhere (key
 * regenerated, merchant deactivated…) sets a new generation and every process stops using its entries at
 * its next request. Unknown and revoked keys are not cached: a new key needs no invalidation.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: PrincipalCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  get(keyHash: string, generation: string): ApiKeyPrincipal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.generation !== generation || this.now() - entry.storedAt > this.maxAgeMs) {
      this.entries.delete(keyHash);
      return undefined;
    }
    // Most recently used last: a Map iterates in insertion order.
    this.entries.delete(keyHash);
    this.entries.set(keyHash, entry);
    return entry.principal;
  }

  set(keyHash: string, generation: string, principal: ApiKeyPrincipal): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, generation, storedAt: this.now() });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
