// A short-lived cache of bearer tokens already looked up (TOKEN_CACHE_MS,
// docs/reference/http-api.md "Authentication"): a staging call's first store round trip
// is the token read, and an agent calls with the same token again and again.
// Only tokens found are kept, so a token created a moment ago works at once;
// a token deleted from the store keeps working up to TOKEN_CACHE_MS in each
// API process that used it.
import type { Db } from 'mongodb';
import { findTokenBySecret, hashSecret, type TokenIdentity } from '../shared/storage/api-tokens.js';

/** Bounds the memory of a process that meets very many tokens; the oldest go first. */
const MAX_ENTRIES = 10_000;

export type TokenLookup = (secret: string) => Promise<TokenIdentity | null>;

/** A token's identity if this process has it cached, without a store read; null when not cached. */
export type TokenPeek = (secret: string) => TokenIdentity | null;

const peeks = new WeakMap<Db, TokenPeek>();

const caches = new WeakMap<Db, TokenLookup>();

export function cachedTokenLookup(
  db: Db,
  ttlMs: number,
  now: () => number = Date.now,
): TokenLookup & { peek: TokenPeek } {
  if (ttlMs <= 0) return Object.assign((secret: string) => findTokenBySecret(db, secret), { peek: () => null });
  const entries = new Map<string, { identity: TokenIdentity; until: number }>();
  const peek: TokenPeek = (secret) => {
    const hit = entries.get(hashSecret(secret));
    return hit && hit.until > now() ? hit.identity : null;
  };
  return Object.assign(
    async (secret: string) => {
      const key = hashSecret(secret);
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.identity;
      const identity = await findTokenBySecret(db, secret);
      entries.delete(key);
      if (identity) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(key, { identity, until: now() + ttlMs });
      }
      return identity;
    },
    { peek },
  );
}

/** The API process's token cache for this database (runtime.ts sets it up from config). */
export function useTokenCache(db: Db, ttlMs: number): void {
  const lookup = cachedTokenLookup(db, ttlMs);
  caches.set(db, lookup);
  peeks.set(db, lookup.peek);
}

/** The cached identity of a token in this process, if any (no store read). */
export function peekToken(db: Db, secret: string): TokenIdentity | null {
  return peeks.get(db)?.(secret) ?? null;
}

/** The lookup requests on this database use: the cached one if set up, else a store read each time. */
export function tokenLookupFor(db: Db): TokenLookup {
  return caches.get(db) ?? ((secret) => findTokenBySecret(db, secret));
}
