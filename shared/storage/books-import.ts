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
  const foreign = await idsOwnedByOtherOrgs(db, file);
  if (foreign.length > 0) return { ok: false, errors: foreign };

  const counts: ImportCounts = {};
  const { id: _orgId, version: orgVersion, ...orgFields } = file.org;
  counts.org = await upsertAll(c.orgs as unknown as Collection<Record<string, unknown>>, [{ id: orgId, ...orgFields, ...(orgVersion ? { version: orgVersion } : {}) }], null);
  for (const [section, name] of SECTIONS) {
    const records = (file[section] as unknown as Raw[]).map((r) => normalise(section, r));
    counts[section] = await upsertAll(c[name] as unknown as Collection<Record<string, unknown>>, records, orgId);
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

/** Ids are global: a record of another organisation is never overwritten. */
async function idsOwnedByOtherOrgs(db: Db, file: BooksFile): Promise<FieldError[]> {
  const c = collections(db);
  const errors: FieldError[] = [];
  for (const [section, name] of SECTIONS) {
    const records = file[section] as unknown as Raw[];
    const index = new Map(records.map((r, i) => [r.id, i]));
    for (let i = 0; i < records.length; i += CHUNK) {
      const ids = records.slice(i, i + CHUNK).map((r) => r.id);
      const clashes = await (c[name] as unknown as Collection<{ _id: string; org_id: string }>)
        .find({ _id: { $in: ids }, org_id: { $ne: file.org.id } }, { projection: { _id: 1 } })
        .toArray();
      for (const clash of clashes) errors.push({ pointer: `/${section}/${index.get(clash._id)}/id`, message: `${clash._id} belongs to another organisation` });
    }
  }
  return errors;
}

async function upsertAll(collection: Collection<Record<string, unknown>>, records: Raw[], orgId: string | null): Promise<{ inserted: number; updated: number; unchanged: number }> {
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK);
    const existing = await collection.find({ _id: { $in: chunk.map((r) => r.id) } } as never).toArray();
    const byId = new Map(existing.map((d) => [d._id as unknown as string, d]));
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
