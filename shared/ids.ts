import { createHash, randomBytes } from 'node:crypto';

export type IdPrefix =
  'le' | 'bt' | 'ba' | 'lnk' | 'doc' | 'stg' | 'tok' | 'job' | 'rec' | 'aud' | 'evt' | 'whe' | 'whd' | 'apr';

/** A new random id with its type prefix, e.g. `stg_3f9c…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** A deterministic id derived from a seed, so that a retried job writes the same record. */
export function derivedId(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
}
