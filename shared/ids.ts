import { hash, randomBytes } from 'node:crypto';

export type IdPrefix =
  'le' | 'bt' | 'ba' | 'lnk' | 'doc' | 'stg' | 'tok' | 'job' | 'rec' | 'aud' | 'evt' | 'whe' | 'whd' | 'apr';

/** A new random id with its type prefix, e.g. `stg_3f9c…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * A deterministic id derived from a seed, so that a retried job writes the
 * same record. One-shot `hash`: a `Hash` object per id is a native handle the
 * garbage collector must finalise, and a big repair derives thousands.
 */
export function derivedId(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${hash('sha256', seed, 'hex').slice(0, 24)}`;
}
