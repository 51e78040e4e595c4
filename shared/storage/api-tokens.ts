import { createHash, randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { TokenScope } from '../domain/token-scopes.js';
import { collections } from './collections.js';

export interface TokenIdentity {
  token_id: string;
  org_id: string;
  actor: string;
  scopes: TokenScope[];
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

export async function createToken(
  db: Db,
  input: { org_id: string; actor: string; scopes: TokenScope[] },
): Promise<TokenIdentity & { token: string }> {
  const token = `bst_${randomBytes(32).toString('base64url')}`;
  const token_id = `tok_${randomBytes(8).toString('hex')}`;
  await collections(db).apiTokens.insertOne({
    _id: hashSecret(token),
    token_id,
    ...input,
    created_at: new Date().toISOString(),
  });
  return { token, token_id, ...input };
}

export async function findTokenBySecret(db: Db, secret: string): Promise<TokenIdentity | null> {
  const doc = await collections(db).apiTokens.findOne({ _id: hashSecret(secret) });
  return doc ? { token_id: doc.token_id, org_id: doc.org_id, actor: doc.actor, scopes: doc.scopes } : null;
}

/** Revoke a token: its record is deleted, so the secret is unknown from the next request on (401). */
export async function revokeToken(db: Db, tokenId: string): Promise<boolean> {
  return (await collections(db).apiTokens.deleteOne({ token_id: tokenId })).deletedCount === 1;
}
