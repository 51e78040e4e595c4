// Loading one organisation's books (DESIGN §4): validated whole before
// anything is written; upsert by id; an unchanged record is left alone
// (re-import is idempotent), a changed one gets version + 1 so that plans
// staged against it become stale. Records absent from the file are kept.
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { canonicalJson } from '../domain/plan-hash.js';
import type { BooksFile } from '../domain/books-file.js';
import { checkBooksIntegrity } from '../domain/books-integrity.js';
import type { FieldError } from '../errors.js';
import { booksFileSchema } from '../schemas/books-file.js';
import { compile } from '../schemas/validator.js';
import { collections } from './collections.js';
import { findWhereIn } from './where-in.js';

const validateFile = compile<BooksFile>(booksFileSchema);

export type ImportCounts = Record<string, { inserted: number; updated: number; unchanged: number }>;
export type ImportResult = { ok: true; org_id: string; counts: ImportCounts } | { ok: false; errors: FieldError[] };

type Raw = Record<string, unknown> & { id: string };

const CHUNK = 1000;
const SECTIONS = [
  ['bank_accounts', 'bankAccounts'],
  ['ledger_entries', 'ledgerEntries'],
  ['bank_transactions', 'bankTransactions'],
  ['bank_links', 'bankLinks'],
  ['inbox_documents', 'inboxDocuments'],
] as const;

/** Fields that may be absent in the file and are stored as null. */
const NULL_DEFAULTS: Record<string, string[]> = {
  ledger_entries: ['reversal_of', 'reversed_by'],
  bank_transactions: ['reconciliation_id'],
};

export async function importBooks(db: Db, input: unknown): Promise<ImportResult> {
  const checked = validateFile(input);
  if (!checked.ok) return { ok: false, errors: checked.errors };
  const file = checked.value;
  const integrity = checkBooksIntegrity(file);
  if (integrity.length > 0) return { ok: false, errors: integrity };

  const c = collections(db);
  const orgId = file.org.id;
  const sections = SECTIONS.map(([section, name]) => ({
    section,
    collection: c[name] as unknown as Collection<Record<string, unknown>>,
    records: (file[section] as unknown as Raw[]).map((r) => normalise(section, r)),
  }));
  // One pass over what the org already holds (an equality on org_id: the one
  // filter FerretDB pushes down; see where-in.ts), instead of an `$in` per chunk.
  const stored = await Promise.all(sections.map(async ({ collection }) => {
    const docs = await collection.find({ org_id: orgId }).toArray();
    return new Map(docs.map((d) => [d._id as unknown as string, d]));
  }));
  const foreign = await idsOwnedByOtherOrgs(db, sections, stored);
  if (foreign.length > 0) return { ok: false, errors: foreign };

  const counts: ImportCounts = {};
  const { id: _orgId, version: orgVersion, ...orgFields } = file.org;
  const storedOrg = await c.orgs.findOne({ _id: orgId });
  counts.org = await upsertAll(c.orgs as unknown as Collection<Record<string, unknown>>, [{ id: orgId, ...orgFields, ...(orgVersion ? { version: orgVersion } : {}) }], null, new Map(storedOrg ? [[orgId, storedOrg as unknown as Record<string, unknown>]] : []));
  for (const [i, { section, collection, records }] of sections.entries()) {
    counts[section] = await upsertAll(collection, records, orgId, stored[i]!);
  }
  return { ok: true, org_id: orgId, counts };
}

function normalise(section: string, record: Raw): Raw {
  const out: Raw = { ...record };
  delete out.org_id;
  for (const field of NULL_DEFAULTS[section] ?? []) if (out[field] === undefined) out[field] = null;
  if (section === 'inbox_documents') {
    // A field extraction could not read is stored absent, whether the file said null or nothing.
    const extracted = Object.fromEntries(Object.entries(out.extracted as Record<string, unknown>).filter(([, v]) => v !== null));
    out.extracted = extracted;
  }
  return out;
}

/** Ids are global: a record of another organisation is never overwritten. Only ids new to this org can clash. */
async function idsOwnedByOtherOrgs(
  db: Db,
  sections: { section: string; collection: Collection<Record<string, unknown>>; records: Raw[] }[],
  stored: Map<string, Record<string, unknown>>[],
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [i, { section, collection, records }] of sections.entries()) {
    const index = new Map(records.map((r, at) => [r.id, at]));
    const fresh = records.map((r) => r.id).filter((id) => !stored[i]!.has(id));
    const clashes = await findWhereIn(db, collection as unknown as Collection<{ _id: string; org_id: string }>, null, '_id', fresh, { _id: 1 });
    for (const clash of clashes) errors.push({ pointer: `/${section}/${index.get(clash._id)}/id`, message: `${clash._id} belongs to another organisation` });
  }
  return errors.sort((a, b) => (a.pointer < b.pointer ? -1 : 1));
}

async function upsertAll(
  collection: Collection<Record<string, unknown>>, records: Raw[], orgId: string | null, byId: Map<string, Record<string, unknown>>,
): Promise<{ inserted: number; updated: number; unchanged: number }> {
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK);
    const ops: AnyBulkWriteOperation<Record<string, unknown>>[] = [];
    for (const record of chunk) {
      const { id, version: fileVersion, ...fields } = record;
      const content = orgId === null ? fields : { org_id: orgId, ...fields };
      const stored = byId.get(id);
      if (!stored) {
        ops.push({ insertOne: { document: { _id: id, ...content, version: (fileVersion as number | undefined) ?? 1 } as never } });
        counts.inserted += 1;
        continue;
      }
      const { _id, version: storedVersion, ...storedContent } = stored;
      if (canonicalJson(storedContent) === canonicalJson(content)) {
        counts.unchanged += 1;
        continue;
      }
      ops.push({ replaceOne: { filter: { _id: id, version: storedVersion } as never, replacement: { ...content, version: Number(storedVersion ?? 0) + 1 } } });
      counts.updated += 1;
    }
    if (ops.length > 0) await collection.bulkWrite(ops, { ordered: false });
  }
  return counts;
}
