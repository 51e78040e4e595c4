// Bad input: hostile requests through the real API, one table row
// each. Every row must get its documented 4xx code (docs/reference/http-api.md §3–§5,
// §15) in an error envelope whose request_id is the X-Request-Id header, never
// a 5xx, and the whole table must write nothing: every collection's checksum
// and both queues' job counts are the same before and after.
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { rawRequest, type RawAnswer } from './raw-request.js';
import { queuesIdle, snapshot } from './snapshot.js';

const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const REPAIR = '/api/v1/cli/bank-matches/ledger-link-repair/stage';
const reverse = (id: string): string => `/api/v1/cli/ledger/entries/${id}/reverse/stage`;
const DUPLICATES = '/api/v1/cli/bookkeeping/inbox/duplicates';
const STAGED = '/api/v1/cli/staged-operations';
const JOBS = '/api/v1/cli/jobs';
const SAFE = Number.MAX_SAFE_INTEGER;

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  /** A JSON value sent as application/json, or raw bytes with their own headers. */
  json?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Send without the org's token. */
  noToken?: boolean;
  status: number;
  code: string;
  /** The pointer validation_failed must name (one of error.errors). */
  pointer?: string;
}

const reconcileBody = (
  patch: Record<string, unknown> = {},
  statement: Record<string, unknown> = {},
): Record<string, unknown> => ({
  bank_account_id: 'ba_1',
  statement: { end_date: '2026-02-28', closing_balance_minor: 0, currency: 'EUR', ...statement },
  transaction_ids: ['bt_1'],
  ...patch,
});
const repairBody = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({
  bank_account_id: 'ba_1',
  counterparty_id: 'cp_1',
  ...patch,
});
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `bt_${i}`);

const money = (name: string, value: unknown): Case => ({
  name: `reconcile: closing_balance_minor ${name}`,
  method: 'POST',
  path: RECONCILE,
  json: reconcileBody({}, { closing_balance_minor: value }),
  status: 400,
  code: 'validation_failed',
  pointer: '/statement/closing_balance_minor',
});
const rawMoney = (name: string, literal: string): Case => ({
  name: `reconcile: closing_balance_minor ${name}`,
  method: 'POST',
  path: RECONCILE,
  headers: { 'content-type': 'application/json' },
  raw: `{"bank_account_id":"ba_1","statement":{"end_date":"2026-02-28","closing_balance_minor":${literal},"currency":"EUR"},"transaction_ids":["bt_1"]}`,
  status: 400,
  code: 'validation_failed',
  pointer: '/statement/closing_balance_minor',
});
const invalid = (name: string, method: Case['method'], path: string, json: unknown, pointer: string): Case => ({
  name,
  method,
  path,
  json,
  status: 400,
  code: 'validation_failed',
  pointer,
});
const query = (name: string, path: string, pointer: string): Case => ({
  name,
  method: 'GET',
  path,
  status: 400,
  code: 'validation_failed',
  pointer,
});

const CASES: Case[] = [
  // Wrong types.
  invalid('reconcile: body is an array', 'POST', RECONCILE, [reconcileBody()], ''),
  invalid(
    'reconcile: transaction_ids is a string',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: 'bt_1' }),
    '/transaction_ids',
  ),
  invalid(
    'reconcile: statement is a string',
    'POST',
    RECONCILE,
    reconcileBody({ statement: '2026-02-28' }),
    '/statement',
  ),
  invalid(
    'reconcile: bank_account_id is a number',
    'POST',
    RECONCILE,
    reconcileBody({ bank_account_id: 12 }),
    '/bank_account_id',
  ),
  invalid(
    'reconcile: bank_account_id is null',
    'POST',
    RECONCILE,
    reconcileBody({ bank_account_id: null }),
    '/bank_account_id',
  ),
  invalid(
    'repair: counterparty_id is a boolean',
    'POST',
    REPAIR,
    repairBody({ counterparty_id: true }),
    '/counterparty_id',
  ),
  invalid(
    'reversal: reversal_date is a number',
    'POST',
    reverse('le_1'),
    { reversal_date: 20260301 },
    '/reversal_date',
  ),
  invalid('approve: note is an object', 'POST', `${STAGED}/stg_abc/approve`, { note: { text: 'ok' } }, '/note'),
  // Money: huge, unsafe, negative where it cannot be, fractional, strings.
  money('as a string', '100'),
  money('1e300', 1e300),
  money('MAX_SAFE + 1', SAFE + 1),
  money('-(MAX_SAFE + 1)', -(SAFE + 1)),
  money('fractional 12.5', 12.5),
  money('fractional -0.01', -0.01),
  rawMoney('as a 400-digit literal', '9'.repeat(400)),
  rawMoney('as 1e400 (Infinity)', '1e400'),
  rawMoney('as 9007199254740993 (rounds to an unsafe integer)', '9007199254740993'),
  // Arrays: too many, empty, repeated, bad items.
  invalid(
    'reconcile: 10,001 transaction ids',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: ids(10_001) }),
    '/transaction_ids',
  ),
  invalid(
    'reconcile: no transaction ids',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: [] }),
    '/transaction_ids',
  ),
  invalid(
    'reconcile: a repeated transaction id',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: ['bt_1', 'bt_1'] }),
    '/transaction_ids/1',
  ),
  invalid(
    'reconcile: a transaction id with ":"',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: ['bt:1'] }),
    '/transaction_ids/0',
  ),
  invalid(
    'reconcile: a transaction id that is a path traversal',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: ['../../etc/passwd'] }),
    '/transaction_ids/0',
  ),
  invalid(
    'reconcile: a transaction id of only dots',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: ['..'] }),
    '/transaction_ids/0',
  ),
  invalid(
    'reconcile: a 129-character transaction id',
    'POST',
    RECONCILE,
    reconcileBody({ transaction_ids: [`bt_${'x'.repeat(126)}`] }),
    '/transaction_ids/0',
  ),
  // Deep JSON.
  invalid(
    'reconcile: 1,000-deep JSON in note',
    'POST',
    RECONCILE,
    JSON.parse(`{"note":${nested(1000)}}`) as unknown,
    '/note',
  ),
  {
    name: 'reconcile: 100,000-deep JSON',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: `{"note":${nested(100_000)}}`,
    status: 400,
    code: 'validation_failed',
    pointer: '/note',
  },
  // Operator and key injection.
  invalid(
    'reconcile: bank_account_id is a $ne operator',
    'POST',
    RECONCILE,
    reconcileBody({ bank_account_id: { $ne: null } }),
    '/bank_account_id',
  ),
  invalid(
    'reconcile: a $-prefixed top-level key',
    'POST',
    RECONCILE,
    reconcileBody({ $set: { status: 'reconciled' } }),
    '/$set',
  ),
  invalid(
    'reconcile: a dotted key',
    'POST',
    RECONCILE,
    reconcileBody({ 'statement.currency': 'USD' }),
    '/statement.currency',
  ),
  invalid(
    'reconcile: a $-prefixed key inside statement',
    'POST',
    RECONCILE,
    reconcileBody({}, { $where: 'sleep(1000)' }),
    '/statement/$where',
  ),
  invalid(
    'repair: bank_account_id "$where"',
    'POST',
    REPAIR,
    repairBody({ bank_account_id: '$where' }),
    '/bank_account_id',
  ),
  {
    name: 'reconcile: __proto__ key',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: JSON.stringify(reconcileBody()).replace(/^\{/, '{"__proto__":{"admin":true},'),
    status: 400,
    code: 'validation_failed',
    pointer: '/__proto__',
  },
  invalid(
    'reconcile: constructor.prototype key',
    'POST',
    RECONCILE,
    reconcileBody({ constructor: { prototype: { admin: true } } }),
    '/constructor',
  ),
  {
    name: 'approve: __proto__ key',
    method: 'POST',
    path: `${STAGED}/stg_abc/approve`,
    headers: { 'content-type': 'application/json' },
    raw: '{"__proto__":{"note":"x"}}',
    status: 400,
    code: 'validation_failed',
    pointer: '/__proto__',
  },
  // NUL, control and bidi characters.
  invalid(
    'reconcile: NUL in statement.reference',
    'POST',
    RECONCILE,
    reconcileBody({}, { reference: 'STM\u0000-1' }),
    '/statement/reference',
  ),
  invalid(
    'reconcile: a control character in note',
    'POST',
    RECONCILE,
    reconcileBody({ note: 'ok\u001b[31m' }),
    '/note',
  ),
  invalid('reconcile: RTL override in note', 'POST', RECONCILE, reconcileBody({ note: 'pay \u202Egnp.exe' }), '/note'),
  invalid('reversal: NUL in reason', 'POST', reverse('le_1'), { reason: 'dup\u0000' }, '/reason'),
  invalid('reversal: bidi isolate in reason', 'POST', reverse('le_1'), { reason: 'a\u2066b\u2069' }, '/reason'),
  invalid('reject: NUL in note', 'POST', `${STAGED}/stg_abc/reject`, { note: '\u0000' }, '/note'),
  invalid(
    'reconcile: NUL in currency',
    'POST',
    RECONCILE,
    reconcileBody({}, { currency: 'E\u0000R' }),
    '/statement/currency',
  ),
  invalid(
    'repair: RTL override in counterparty_id',
    'POST',
    REPAIR,
    repairBody({ counterparty_id: 'cp_\u202E1' }),
    '/counterparty_id',
  ),
  // Lone UTF-16 surrogates: stored they would become U+FFFD; a pair (an emoji) is fine.
  invalid(
    'reversal: a lone high surrogate in reason',
    'POST',
    reverse('le_1'),
    { reason: 'dup \uD800 entry' },
    '/reason',
  ),
  invalid(
    'reversal: a lone low surrogate at the end of reason',
    'POST',
    reverse('le_1'),
    { reason: 'dup\uDC00' },
    '/reason',
  ),
  invalid('approve: a lone surrogate in note', 'POST', `${STAGED}/stg_abc/approve`, { note: 'ok \uDBFF' }, '/note'),
  invalid('reject: two low surrogates in note', 'POST', `${STAGED}/stg_abc/reject`, { note: '\uDC00\uDC00' }, '/note'),
  invalid(
    'reconcile: a lone surrogate in statement.reference',
    'POST',
    RECONCILE,
    reconcileBody({}, { reference: 'STM\uD83D' }),
    '/statement/reference',
  ),
  // Dates.
  invalid(
    'reconcile: end_date 2026-02-30',
    'POST',
    RECONCILE,
    reconcileBody({}, { end_date: '2026-02-30' }),
    '/statement/end_date',
  ),
  invalid(
    'reconcile: end_date 2025-02-29 (not a leap year)',
    'POST',
    RECONCILE,
    reconcileBody({}, { end_date: '2025-02-29' }),
    '/statement/end_date',
  ),
  invalid(
    'reconcile: end_date with a time',
    'POST',
    RECONCILE,
    reconcileBody({}, { end_date: '2026-02-28T00:00:00Z' }),
    '/statement/end_date',
  ),
  invalid(
    'reconcile: end_date of 100,000 characters',
    'POST',
    RECONCILE,
    reconcileBody({}, { end_date: `2026-02-28${' '.repeat(100_000)}` }),
    '/statement/end_date',
  ),
  invalid('repair: as_of 2026-13-01', 'POST', REPAIR, repairBody({ as_of: '2026-13-01' }), '/as_of'),
  invalid(
    'reversal: reversal_date 2026-04-31',
    'POST',
    reverse('le_1'),
    { reversal_date: '2026-04-31' },
    '/reversal_date',
  ),
  invalid('reversal: reversal_date null', 'POST', reverse('le_1'), { reversal_date: null }, '/reversal_date'),
  // Long strings.
  invalid('reconcile: note of 1,001 characters', 'POST', RECONCILE, reconcileBody({ note: 'x'.repeat(1001) }), '/note'),
  invalid(
    'reconcile: statement.reference of 201 characters',
    'POST',
    RECONCILE,
    reconcileBody({}, { reference: 'x'.repeat(201) }),
    '/statement/reference',
  ),
  invalid('reversal: reason of 501 characters', 'POST', reverse('le_1'), { reason: 'x'.repeat(501) }, '/reason'),
  invalid('reject: note of 1,001 characters', 'POST', `${STAGED}/stg_abc/reject`, { note: 'x'.repeat(1001) }, '/note'),
  // Missing and unknown fields.
  invalid('repair: counterparty_id missing', 'POST', REPAIR, { bank_account_id: 'ba_1' }, '/counterparty_id'),
  invalid('repair: counterparty_id empty', 'POST', REPAIR, repairBody({ counterparty_id: '' }), '/counterparty_id'),
  invalid('reject: note missing', 'POST', `${STAGED}/stg_abc/reject`, {}, '/note'),
  invalid('apply: an unknown field', 'POST', `${STAGED}/stg_abc/apply`, { force: true }, '/force'),
  // Ids in paths: traversal, ":", NUL, RTL, too long.
  invalid('reversal: ":" in the entry id', 'POST', reverse('le:1'), {}, '/path/entry_id'),
  invalid(
    'reversal: an encoded path traversal as entry id',
    'POST',
    reverse('..%2F..%2Fetc%2Fpasswd'),
    {},
    '/path/entry_id',
  ),
  invalid('reversal: ".." as entry id', 'POST', reverse('%2e%2e'), {}, '/path/entry_id'),
  invalid('reversal: NUL in the entry id', 'POST', reverse('le_1%00'), {}, '/path/entry_id'),
  invalid('reversal: RTL override in the entry id', 'POST', reverse('le_%E2%80%AE1'), {}, '/path/entry_id'),
  invalid('reversal: a 200-character entry id', 'POST', reverse(`le_${'x'.repeat(197)}`), {}, '/path/entry_id'),
  query('show: ":" in the operation id', `${STAGED}/stg_a:b`, '/path/id'),
  query('show: an encoded traversal as operation id', `${STAGED}/stg_..%2F..%2Fx`, '/path/id'),
  invalid('approve: a 69-character operation id', 'POST', `${STAGED}/stg_${'a'.repeat(65)}/approve`, {}, '/path/id'),
  invalid('apply: NUL in the operation id', 'POST', `${STAGED}/stg_a%00/apply`, {}, '/path/id'),
  // Malformed percent-encoding in a path parameter: 400 before authentication, not 500.
  {
    name: 'reversal: "%" as entry id',
    method: 'POST',
    path: reverse('%'),
    json: {},
    status: 400,
    code: 'malformed_path',
  },
  {
    name: 'reversal: "%" as entry id, without a token',
    method: 'POST',
    path: reverse('%'),
    json: {},
    noToken: true,
    status: 400,
    code: 'malformed_path',
  },
  { name: 'show: "%zz" as operation id', method: 'GET', path: `${STAGED}/%zz`, status: 400, code: 'malformed_path' },
  {
    name: 'approve: "%E2%80" (a cut UTF-8 sequence) as operation id',
    method: 'POST',
    path: `${STAGED}/%E2%80/approve`,
    json: {},
    status: 400,
    code: 'malformed_path',
  },
  { name: 'job: "%zz" as job id', method: 'GET', path: `${JOBS}/%zz`, status: 400, code: 'malformed_path' },
  {
    name: 'job: "%zz" as job id, without a token',
    method: 'GET',
    path: `${JOBS}/%zz`,
    noToken: true,
    status: 400,
    code: 'malformed_path',
  },
  { name: 'job: ":" in the job id', method: 'GET', path: `${JOBS}/job_a:b`, status: 404, code: 'not_found' },
  {
    name: 'job: an encoded traversal as job id',
    method: 'GET',
    path: `${JOBS}/job_..%2F..%2Fidempotency_keys`,
    status: 404,
    code: 'not_found',
  },
  {
    name: 'job: a 5,000-character job id',
    method: 'GET',
    path: `${JOBS}/job_${'a'.repeat(5000)}`,
    status: 404,
    code: 'not_found',
  },
  { name: 'job: $ne as job id', method: 'GET', path: `${JOBS}/%24ne`, status: 404, code: 'not_found' },
  // Query strings and cursors.
  query('duplicates: limit=abc', `${DUPLICATES}?limit=abc`, '/query/limit'),
  query('duplicates: limit=0', `${DUPLICATES}?limit=0`, '/query/limit'),
  query('duplicates: limit=1.5', `${DUPLICATES}?limit=1.5`, '/query/limit'),
  query('duplicates: limit=1e309 (Infinity)', `${DUPLICATES}?limit=1e309`, '/query/limit'),
  query('duplicates: limit=9007199254740993', `${DUPLICATES}?limit=9007199254740993`, '/query/limit'),
  query('duplicates: limit repeated', `${DUPLICATES}?limit=1&limit=2`, '/query/limit'),
  query('duplicates: limit empty', `${DUPLICATES}?limit=`, '/query/limit'),
  query('duplicates: min_confidence=-0.1', `${DUPLICATES}?min_confidence=-0.1`, '/query/min_confidence'),
  query('duplicates: min_confidence=NaN', `${DUPLICATES}?min_confidence=NaN`, '/query/min_confidence'),
  query('duplicates: a 513-character cursor', `${DUPLICATES}?cursor=${'a'.repeat(513)}`, '/query/cursor'),
  query('duplicates: cursor[$ne]=x', `${DUPLICATES}?cursor%5B%24ne%5D=x`, '/query/cursor[$ne]'),
  query('duplicates: __proto__ parameter', `${DUPLICATES}?__proto__=1`, '/query/__proto__'),
  query('duplicates: $where parameter', `${DUPLICATES}?%24where=1`, '/query/$where'),
  {
    name: 'duplicates: a forged cursor',
    method: 'GET',
    path: `${DUPLICATES}?cursor=eyJhZnRlciI6e319`,
    status: 400,
    code: 'invalid_cursor',
  },
  {
    name: 'duplicates: a cursor with NUL',
    method: 'GET',
    path: `${DUPLICATES}?cursor=abc%00def`,
    status: 400,
    code: 'invalid_cursor',
  },
  query('list: limit=101', `${STAGED}?limit=101`, '/query/limit'),
  query('list: status=bogus', `${STAGED}?status=bogus`, '/query/status'),
  query('list: created_by with $', `${STAGED}?created_by=%24ne`, '/query/created_by'),
  query('list: status[]=staged', `${STAGED}?status%5B%5D=staged`, '/query/status[]'),
  query('list: a 1,025-character cursor', `${STAGED}?cursor=${'a'.repeat(1025)}`, '/query/cursor'),
  {
    name: 'list: a forged cursor',
    method: 'GET',
    path: `${STAGED}?cursor=bm90LWEtY3Vyc29y`,
    status: 400,
    code: 'invalid_cursor',
  },
  // Headers.
  {
    name: 'reconcile: Idempotency-Key of 256 characters',
    method: 'POST',
    path: RECONCILE,
    json: reconcileBody(),
    headers: { 'idempotency-key': 'k'.repeat(256) },
    status: 400,
    code: 'validation_failed',
    pointer: '/headers/idempotency-key',
  },
  {
    name: 'reversal: Idempotency-Key with a Latin-1 byte',
    method: 'POST',
    path: reverse('le_1'),
    json: {},
    headers: { 'idempotency-key': 'clé' },
    status: 400,
    code: 'validation_failed',
    pointer: '/headers/idempotency-key',
  },
  {
    name: 'a 600-character bearer token',
    method: 'GET',
    path: STAGED,
    noToken: true,
    headers: { authorization: `Bearer ${'t'.repeat(600)}` },
    status: 401,
    code: 'unauthenticated',
  },
  {
    name: 'headers over 16 KB in all',
    method: 'GET',
    path: STAGED,
    headers: { 'x-filler': 'f'.repeat(20_000) },
    status: 431,
    code: 'request_header_too_large',
  },
  // Content types, encodings, sizes and JSON syntax.
  {
    name: 'reconcile: text/plain body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'text/plain' },
    raw: JSON.stringify(reconcileBody()),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reconcile: form-encoded body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: 'bank_account_id=ba_1',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reconcile: multipart body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    raw: '--x\r\n\r\n{}\r\n--x--',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reconcile: JSON in UTF-16',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json; charset=utf-16' },
    raw: Buffer.from(JSON.stringify(reconcileBody()), 'utf16le'),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reversal: a body without a content type',
    method: 'POST',
    path: reverse('le_1'),
    raw: '{}',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reconcile: Content-Encoding compress',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
    raw: '{}',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'reconcile: a gzip bomb (64 KB → 64 MB)',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    raw: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 }),
    status: 413,
    code: 'payload_too_large',
  },
  // Corrupt and truncated compressed bodies: 400, not 500.
  {
    name: 'reconcile: a corrupt gzip body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    raw: Buffer.from('this is not gzip at all'),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a truncated gzip body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    raw: gzipSync(JSON.stringify(reconcileBody())).subarray(0, 20),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a corrupt deflate body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' },
    raw: Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff, 0x00, 0x01]),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a truncated deflate body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' },
    raw: deflateSync(JSON.stringify(reconcileBody())).subarray(0, 10),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a corrupt br body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    raw: Buffer.from('not brotli, certainly not'),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a truncated br body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    raw: brotliCompressSync(JSON.stringify(reconcileBody({ note: 'x'.repeat(500) }))).subarray(0, 8),
    status: 400,
    code: 'malformed_body_encoding',
  },
  {
    name: 'reconcile: a 2 MB body',
    method: 'POST',
    path: RECONCILE,
    json: reconcileBody({ note: 'x'.repeat(2 * 1024 * 1024) }),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'reconcile: truncated JSON',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: '{"bank_account_id":',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'reconcile: a bare null body',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: 'null',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'reconcile: a duplicate top-level key',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: JSON.stringify(reconcileBody()).replace(/^\{/, '{"bank_account_id":"ba_other",'),
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'reconcile: a duplicate nested key',
    method: 'POST',
    path: RECONCILE,
    headers: { 'content-type': 'application/json' },
    raw: '{"bank_account_id":"ba_1","statement":{"end_date":"2026-02-28","currency":"EUR","closing_balance_minor":0,"currency":"USD"},"transaction_ids":["bt_1"]}',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'approve: a duplicate key written with an escape',
    method: 'POST',
    path: `${STAGED}/stg_abc/approve`,
    headers: { 'content-type': 'application/json' },
    raw: '{"note":"a","n\\u006fte":"b"}',
    status: 400,
    code: 'malformed_json',
  },
  // Routes and methods that do not exist.
  {
    name: 'PUT on the staged-operation list',
    method: 'PUT',
    path: STAGED,
    json: {},
    status: 404,
    code: 'route_not_found',
  },
  {
    name: 'DELETE a staged operation',
    method: 'DELETE',
    path: `${STAGED}/stg_abc`,
    status: 404,
    code: 'route_not_found',
  },
  { name: 'GET on a staging endpoint', method: 'GET', path: RECONCILE, status: 404, code: 'route_not_found' },
  {
    name: 'a path traversal out of /api',
    method: 'GET',
    path: '/api/v1/cli/../../../etc/passwd',
    status: 404,
    code: 'route_not_found',
  },
];

function expectEnvelope(c: Case, res: RawAnswer): void {
  const where = `${c.name}: ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).to.equal(c.status);
  const requestId = res.headers['x-request-id'];
  expect(requestId, where).to.be.a('string').and.not.equal('');
  expect(res.json, where).to.not.equal(null);
  const body = res.json!;
  expect(body, where).to.include({ ok: false, api_version: 'v1', request_id: requestId });
  const error = body.error as {
    code: string;
    status: number;
    retryable: boolean;
    message: string;
    details: object;
    errors?: { pointer: string }[];
  };
  expect(error, where).to.include({ code: c.code, status: c.status, retryable: false });
  expect(error.message, where).to.be.a('string');
  expect(error.details, where).to.be.an('object');
  if (c.pointer !== undefined)
    expect(
      error.errors?.map((e) => e.pointer),
      where,
    ).to.include(c.pointer);
}

describe('abuse: hostile input', function () {
  this.timeout(120_000);

  it(`answers each of ${CASES.length} hostile requests with its documented 4xx and envelope, and writes nothing`, async () => {
    expect(CASES.length).to.be.at.least(60);
    const s = await stack();
    const books = new Books();
    books.invoice(1_000, { id: `le_${books.uid}` });
    await s.load(books.file);
    const token = await s.token(books.orgId, [...TOKEN_SCOPES], 'mallory');
    await queuesIdle();
    const before = await snapshot();

    const failures: string[] = [];
    for (const c of CASES) {
      const headers: Record<string, string> = {
        ...(c.noToken ? {} : { authorization: `Bearer ${token}` }),
        ...c.headers,
      };
      let body = c.raw;
      if (c.json !== undefined) {
        body = JSON.stringify(c.json);
        headers['content-type'] ??= 'application/json';
      }
      const res = await rawRequest({ method: c.method, path: c.path, headers, body });
      try {
        expect(res.status, `${c.name}: no 5xx`).to.be.below(500);
        expectEnvelope(c, res);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);

    await queuesIdle();
    expect(await snapshot()).to.deep.equal(before);
  });

  it('answers a request line the HTTP parser cannot read with 400 malformed_request, the envelope and a request id', async () => {
    const url = new URL((await stack()).baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        // A header line without a colon: Node's parser stops at HPE_INVALID_HEADER_TOKEN.
        socket.write(`GET ${STAGED} HTTP/1.1\r\nHost: bookstage\r\nnot a header\r\n\r\n`);
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).to.equal('HTTP/1.1 400 Bad Request');
    const requestId = /^X-Request-Id: (.+)$/im.exec(head)?.[1];
    expect(requestId, head).to.match(/^[0-9a-f-]{36}$/);
    const envelope = JSON.parse(body) as {
      ok: boolean;
      operation: unknown;
      request_id: string;
      error: { code: string };
    };
    expect(envelope.ok).to.equal(false);
    expect(envelope.operation).to.equal(null);
    expect(envelope.request_id).to.equal(requestId);
    expect(envelope.error.code).to.equal('malformed_request');
  });
});
