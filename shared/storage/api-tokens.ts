import { createHash, randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { TokenScope } from '../domain/token-scopes.js';
import { collections } from './collections.js';

export interface TokenIdentity {
  token_id: string;
  org_id: string;
  actor: string;
  scopes: TokenScope[];
  /** Created as an agent's token: the approval policy counts its actor as an agent (docs/guide/importing-books.md). */
  agent: boolean;
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

export async function createToken(
  db: Db,
  input: { org_id: string; actor: string; scopes: TokenScope[]; agent?: boolean },
): Promise<TokenIdentity & { token: string }> {
  const token = `bst_${randomBytes(32).toString('base64url')}`;
  const token_id = `tok_${randomBytes(8).toString('hex')}`;
  const identity = { org_id: input.org_id, actor: input.actor, scopes: input.scopes, agent: input.agent ?? false };
  await collections(db).apiTokens.insertOne({
    _id: hashSecret(token),
    token_id,
    ...identity,
    created_at: new Date().toISOString(),
  });
  return { token, token_id, ...identity };
}

export async function findTokenBySecret(db: Db, secret: string): Promise<TokenIdentity | null> {
  const doc = await collections(db).apiTokens.findOne({ _id: hashSecret(secret) });
  return doc
    ? { token_id: doc.token_id, org_id: doc.org_id, actor: doc.actor, scopes: doc.scopes, agent: doc.agent === true }
    : null;
}

/** Revoke a token: its record is deleted, so the secret is unknown from the next request on (401). */
export async function revokeToken(db: Db, tokenId: string): Promise<boolean> {
  return (await collections(db).apiTokens.deleteOne({ token_id: tokenId })).deletedCount === 1;
}
