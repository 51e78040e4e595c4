// Token scopes (docs/reference/http-api.md §3): what an API token may do. Not to be
// confused with plan locks (the keys a pending operation holds,
// shared/storage/plan-locks.ts) or a repair's record set.
export const TOKEN_SCOPES = [
  'bank:stage',
  'ledger:stage',
  'inbox:read',
  'staged:read',
  'staged:approve',
  'staged:apply',
  'admin',
  'books:read',
  'events:read',
  'webhooks:manage',
  'inbox:stage',
  'policy:stage',
] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
