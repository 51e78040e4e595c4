// Loading one organisation's books (docs/guide/importing-books.md;
// the file shape is shared/domain/books-file.ts): the file is validated whole before
// anything is written, then upserted by id (shared/storage/books-write.ts);
// re-import is idempotent, and records absent from the file are kept.
// Ids are global: a record of another organisation is never overwritten.
import type { Db } from 'mongodb';
import type { BooksFile } from '../domain/books-file.js';
import { checkBooksIntegrity } from '../domain/books-integrity.js';
import { accountCodesUsed, uncoveredCodes } from '../domain/chart-of-accounts.js';
import type { FieldError } from '../errors.js';
import { booksFileSchema } from '../schemas/books-file.js';
import { compile } from '../schemas/validator.js';
import {
  BOOK_SECTIONS,
  findTakenIds,
  readOrgRecord,
  readSectionOfOrg,
  sectionCollectionName,
  undoUpsert,
  upsertRecords,
  type BookRecord,
  type BookSection,
  type StoredById,
  type UpsertCounts,
} from '../storage/books-write.js';
import { collections } from '../storage/collections.js';
import { rebuildOpenAmounts } from '../storage/entry-open-amounts.js';
import { bumpInboxVersion } from '../storage/inbox-version.js';
import { invalidateFigures, rebuildFigures } from '../storage/book-figures.js';
import { ledgerAccountId } from '../storage/ledger-accounts.js';
import { storeAdapter } from '../storage/store-adapter.js';
import { newImportHolder } from '../storage/version-reservations.js';

const validateFile = compile<BooksFile>(booksFileSchema);

export type ImportCounts = Record<string, UpsertCounts>;
export type ImportResult = { ok: true; org_id: string; counts: ImportCounts } | { ok: false; errors: FieldError[] };

interface SectionRecords {
  section: BookSection;
  records: BookRecord[];
}

/** Fields that may be absent in the file and are stored as null. */
const NULL_DEFAULTS: Partial<Record<BookSection, string[]>> = {
  ledger_entries: ['reversal_of', 'reversed_by'],
  bank_transactions: ['reconciliation_id'],
};

/**
 * The check that no id is another organisation's (findTakenIds) and the
 * planner statistics after the writes go through the store port bound to
 * `db` (docs/design/architecture.md "The store port").
 */
export async function importBooks(db: Db, input: unknown): Promise<ImportResult> {
  const checked = validateFile(input);
  if (!checked.ok) return { ok: false, errors: checked.errors };
  const file = checked.value;
  const integrity = checkBooksIntegrity(file);
  if (integrity.length > 0) return { ok: false, errors: integrity };

  const orgId = file.org.id;
  const sections = sectionsOf(file);
  const stored = await Promise.all(sections.map(({ section }) => readSectionOfOrg(db, section, orgId)));
  const uncovered = uncoveredCodes(chartAfterImport(sections, stored), accountCodesUsed(file));
  if (uncovered.length > 0) return { ok: false, errors: uncovered };
  const foreign = await idsOwnedByOtherOrgs(db, sections, stored);
  if (foreign.length > 0) return { ok: false, errors: foreign };

  const { version: orgVersion, ...orgFields } = file.org;
  const org: BookRecord = { ...orgFields, ...(orgVersion ? { version: orgVersion } : {}) };
  const steps: WriteStep[] = [
    { target: 'orgs', orgId: null, records: [org], stored: await readOrgRecord(db, orgId) },
    ...sections.map(({ section, records }, i) => ({ target: section, orgId, records, stored: stored[i]! })),
  ];
  const counts = await writeAllOrUndo(db, orgId, steps);
  // After the last write: a duplicate overview computed from the old inbox is
  // never served again (docs/design/duplicate-overview.md). Every finished import
  // bumps it, changed or not, so that re-running an import that died between
  // its writes and this line still makes its writes seen.
  await bumpInboxVersion(db, orgId);
  // The planner must know the org's new rows before the first staging reads
  // them (docs/indexes.md "Statistics after an import"); a no-op on MongoDB.
  const grown = sections
    .filter(({ section }) => (counts[section]?.inserted ?? 0) > 0)
    .map(({ section }) => sectionCollectionName(db, section));
  if (grown.length > 0) await (await storeAdapter(db)).refreshStatistics(grown);
  // The entries' open amounts as the imported books give them (docs/design/entry-open-amounts.md "Filling"):
  // also after an import that changed nothing, so re-running one that died before this line completes it.
  await rebuildOpenAmounts(db, orgId);
  if (grown.length > 0)
    await (await storeAdapter(db)).refreshStatistics([collections(db).entryOpenAmounts.collectionName]);
  // The kept figures of the book reads from the imported books (docs/reference/book-reads.md "Kept figures"),
  // built by every finished import as the open amounts are, so that no reader or apply pays for it.
  await rebuildFigures(db, orgId);
  return { ok: true, org_id: orgId, counts };
}

interface WriteStep {
  target: BookSection | 'orgs';
  orgId: string | null;
  records: BookRecord[];
  stored: StoredById;
}

/**
 * Without transactions, a write that fails half-way (a lost connection, a
 * record changed meanwhile) is undone: every step begun so far, the failing
 * one included, is put back as it was read, and the error is thrown. If the
 * undo itself cannot reach the database, the same import run again completes
 * it (re-import is idempotent).
 */
async function writeAllOrUndo(db: Db, orgId: string, steps: WriteStep[]): Promise<ImportCounts> {
  const counts: ImportCounts = {};
  const begun: WriteStep[] = [];
  // Every replace reserves the version it is guarded by, as an apply's writes do (docs/operating/reliability.md).
  const holder = newImportHolder();
  try {
    for (const step of steps) {
      begun.push(step);
      counts[step.target === 'orgs' ? 'org' : step.target] = await upsertRecords(
        db,
        step.target,
        step.orgId,
        step.records,
        step.stored,
        holder,
      );
    }
  } catch (err) {
    for (const step of begun.reverse())
      await undoUpsert(db, step.target, step.orgId, step.records, step.stored, holder);
    // An overview computed while the half-written inbox was visible must not outlive the undo.
    await bumpInboxVersion(db, orgId);
    await invalidateFigures(db, orgId);
    throw err;
  }
  return counts;
}

/**
 * The codes of the organisation's chart once the file is written: the stored
 * accounts (an import keeps records absent from the file) and the file's
 * (docs/guide/importing-books.md "Chart of accounts").
 */
function chartAfterImport(sections: SectionRecords[], stored: StoredById[]): Set<string> {
  const at = sections.findIndex(({ section }) => section === 'accounts');
  const codes = new Set([...stored[at]!.values()].map((doc) => String(doc.code)));
  for (const record of sections[at]!.records) codes.add(String(record.code));
  return codes;
}

/** The file's record sections, each record normalised to what is stored. */
function sectionsOf(file: BooksFile): SectionRecords[] {
  return (Object.keys(BOOK_SECTIONS) as BookSection[]).map((section) => {
    if (section === 'accounts') {
      // An account has no id of its own: stored under ORG:CODE (shared/storage/ledger-accounts.ts).
      const records = (file.accounts ?? []).map((a) => ({ id: ledgerAccountId(file.org.id, a.code), ...a }));
      return { section, records };
    }
    const records: readonly BooksFile[Exclude<BookSection, 'accounts'>][number][] = file[section];
    return { section, records: records.map((record) => normalise(section, { ...record })) };
  });
}

function normalise(section: BookSection, record: BookRecord): BookRecord {
  const out: BookRecord = { ...record };
  delete out.org_id;
  for (const field of NULL_DEFAULTS[section] ?? []) if (out[field] === undefined) out[field] = null;
  if (section === 'inbox_documents') {
    // A field extraction could not read is stored absent, whether the file said null or nothing.
    const extracted = Object.fromEntries(
      Object.entries(out.extracted as Record<string, unknown>).filter(([, v]) => v !== null),
    );
    out.extracted = extracted;
  }
  return out;
}

/** Only ids new to this org can clash with another organisation's records. */
async function idsOwnedByOtherOrgs(db: Db, sections: SectionRecords[], stored: StoredById[]): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [i, { section, records }] of sections.entries()) {
    const index = new Map(records.map((r, at) => [r.id, at]));
    const fresh = records.map((r) => r.id).filter((id) => !stored[i]!.has(id));
    for (const id of await findTakenIds(db, section, fresh)) {
      errors.push({ pointer: `/${section}/${index.get(id)}/id`, message: `${id} belongs to another organisation` });
    }
  }
  return errors.sort((a, b) => (a.pointer < b.pointer ? -1 : 1));
}
