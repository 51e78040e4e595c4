// The revert's pure rule and journal (shared/kinds/revert/plan.ts) over random
// sequences of applies and reverts on generated books (docs/design/staged-lifecycle.md
// "Reverts"): reconciliations, link repairs, bank matches, statement imports,
// duplicate resolutions, journal entries and approval policy changes, each
// applied through its real journal (shared/domain/apply-journal.ts),
// with outside edits of links between them. A revert is staged exactly when
// every record the apply wrote still holds what it wrote (and the kind's own
// conditions hold); once applied, those records read as before the apply, each
// at a higher version (a journal entry's entry reversed by its reversing entry
// instead; a policy change by the policy it replaced, as a new version); and
// reverting everything, latest first, gives back the generated books but for
// versions and those reversal pairs, and the policy in force as generated.
import { expect } from 'chai';
import type { ApplyBooks, JournalWrite } from '../../shared/domain/apply-journal.js';
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  LedgerEntry,
  Precondition,
  VersionedInboxDocument,
} from '../../shared/domain/books.js';
import { journalFromPlan, planJournalWithLinks } from '../../shared/kinds/journals.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';
import { reconcileRevertRules } from '../../shared/kinds/bank-reconcile/revert.js';
import { inboxResolveRevertRules } from '../../shared/kinds/inbox-duplicates-resolve/revert.js';
import { repairRevertReads, repairRevertRules } from '../../shared/kinds/ledger-link-repair/revert.js';
import {
  decideRevert,
  recordKey,
  revertJournal,
  type KindRevertRules,
  type RevertSubject,
  type StoredRecord,
} from '../../shared/kinds/revert/plan.js';
import { importRevertRules } from '../../shared/kinds/statement-import/revert.js';
import { matchRevertRules } from '../../shared/kinds/bank-match/revert.js';
import { journalEntryRevertRules, revertReversingEntryId } from '../../shared/kinds/journal-entry/revert.js';
import { approvalPolicyRevertRules } from '../../shared/kinds/approval-policy/revert.js';
import {
  approvalPolicyId,
  DEFAULT_POLICY,
  type ApprovalPolicy,
  type ApprovalPolicyPlan,
} from '../../shared/domain/approval-policy.js';
import { mulberry32 } from '../helpers/seeded-random.js';

type Rec = StoredRecord;
type Store = Map<string, Rec>;

const COLLECTIONS = ['bank_accounts', 'bank_transactions', 'bank_links', 'ledger_entries', 'inbox_documents'] as const;

interface Applied {
  id: string;
  kind: StagedKind | 'edit';
  plan: unknown;
  writes: JournalWrite[];
  preconditions: Precondition[];
  applied_at: string;
  /** The records it wrote as they were before it (null: absent). */
  before: Map<string, Rec | null>;
  reverted: boolean;
}

const RULES: Partial<Record<StagedKind, KindRevertRules>> = {
  bank_reconcile: reconcileRevertRules,
  ledger_link_repair: repairRevertRules,
  statement_import: importRevertRules,
  inbox_duplicates_resolve: inboxResolveRevertRules,
  bank_match: matchRevertRules,
  journal_entry: journalEntryRevertRules,
  approval_policy: approvalPolicyRevertRules,
};

const POLICIES = 'approval_policies/';
type PolicyContent = Pick<ApprovalPolicy, 'rules' | 'agents_may_approve' | 'unattended'>;
/** A policy's content as the reads compare it: a rule's absent `min_amount_minor` is 0. */
const policyContent = (p: PolicyContent): string =>
  json({
    rules: p.rules.map((r) => ({ ...r, min_amount_minor: r.min_amount_minor ?? 0 })),
    agents_may_approve: p.agents_may_approve,
    unattended: p.unattended,
  });
/** The policy in force: the highest version stored, else the default (version 0). */
function inForce(store: Store): PolicyContent & { version: number } {
  let best: Rec | null = null;
  for (const [key, rec] of store)
    if (key.startsWith(POLICIES) && (!best || (rec.policy_version as number) > (best.policy_version as number)))
      best = rec;
  return best
    ? {
        version: best.policy_version as number,
        rules: best.rules as PolicyContent['rules'],
        agents_may_approve: best.agents_may_approve as boolean,
        unattended: best.unattended as PolicyContent['unattended'],
      }
    : DEFAULT_POLICY;
}
/** The policy of `version` (0: the default). */
function policyOf(store: Store, version: number): PolicyContent {
  if (version === 0) return DEFAULT_POLICY;
  const rec = store.get(`${POLICIES}${approvalPolicyId('org_1', version)}`)!;
  return {
    rules: rec.rules as PolicyContent['rules'],
    agents_may_approve: rec.agents_may_approve as boolean,
    unattended: rec.unattended as PolicyContent['unattended'],
  };
}

/** The reversing entries' date: after every generated entry's. */
const REVERSAL_DATE = '2026-12-31';

/** A record as the reads answer it: without its version, and a document's null archived_reason absent (docs/reference/book-reads.md). */
const strip = (r: Rec | null | undefined): Record<string, unknown> | null => {
  if (!r) return null;
  const { version: _v, ...rest } = r;
  if (rest.archived_reason === null) delete rest.archived_reason;
  if (rest.booked_entry_id === null) delete rest.booked_entry_id;
  return rest;
};
const json = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

function of<T>(store: Store, collection: string): T[] {
  const out: T[] = [];
  for (const [key, rec] of store)
    if (key.startsWith(`${collection}/`)) out.push({ ...rec, id: key.slice(collection.length + 1) } as T);
  return out.sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1));
}

function applyBooks(store: Store): ApplyBooks {
  return {
    entries: of<LedgerEntry>(store, 'ledger_entries'),
    accounts: of<BankAccount>(store, 'bank_accounts'),
    transactions: of<BankTransaction>(store, 'bank_transactions'),
    links: of<BankLink>(store, 'bank_links'),
    documents: of<VersionedInboxDocument>(store, 'inbox_documents'),
  };
}

/** Make a journal's writes as apply-writes.ts does: each guarded by its version, bumping it. */
function make(store: Store, writes: readonly JournalWrite[]): void {
  for (const w of writes) {
    const key = recordKey(w.collection, w.id);
    const now = store.get(key);
    if (w.action === 'insert') {
      expect(now, `insert ${key}`).to.equal(undefined);
      store.set(key, { ...w.doc, version: typeof w.doc.version === 'number' ? w.doc.version : 1 });
    } else if (w.action === 'update') {
      expect(now?.version, `update ${key}`).to.equal(w.version);
      store.set(key, { ...now!, ...w.set, version: w.version + 1 });
    } else {
      expect(now?.version, `delete ${key}`).to.equal(w.version);
      store.delete(key);
    }
  }
}

function generate(rand: () => number): { store: Store; account: string; pool: string[]; docs: string[] } {
  const store: Store = new Map();
  const account = 'ba_1';
  store.set(`bank_accounts/${account}`, {
    name: 'Main',
    currency: 'EUR',
    reconciled_through: null,
    version: 1,
  });
  const pool: string[] = [];
  const nTxn = 2 + Math.floor(rand() * 4);
  const nEntry = 2 + Math.floor(rand() * 3);
  for (let e = 1; e <= nEntry; e += 1)
    store.set(`ledger_entries/le_${e}`, { entry_date: '2026-01-0' + String(e), status: 'posted', version: 1 });
  for (let t = 1; t <= nTxn; t += 1) {
    store.set(`bank_transactions/bt_r${t}`, {
      bank_account_id: account,
      booking_date: `2026-02-${String(10 + t)}`,
      amount_minor: 1_000 * t,
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
    });
    // The repair pool: transactions only repairs touch.
    const id = `bt_p${t}`;
    pool.push(id);
    store.set(`bank_transactions/${id}`, {
      bank_account_id: account,
      booking_date: `2026-02-0${t}`,
      amount_minor: 5_000,
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
    });
    const links = Math.floor(rand() * 3);
    for (let l = 0; l < links; l += 1)
      store.set(`bank_links/lnk_${t}_${l}`, {
        bank_transaction_id: id,
        ledger_entry_id: `le_${1 + Math.floor(rand() * nEntry)}`,
        amount_minor: 100 + Math.floor(rand() * 900),
        created_at: '2026-02-01T00:00:00.000Z',
        created_by: 'alice',
        version: 1 + Math.floor(rand() * 3),
      });
  }
  const docs: string[] = [];
  for (let d = 1; d <= 3 + Math.floor(rand() * 3); d += 1) {
    docs.push(`doc_${d}`);
    store.set(`inbox_documents/doc_${d}`, { status: rand() < 0.5 ? 'open' : 'booked', version: 1 });
  }
  return { store, account, pool, docs };
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

describe('revert: random sequences of applies and reverts (pure plan and journals)', () => {
  let sawEntries = 0;
  let sawMatches = 0;
  let sawPolicies = 0;
  /** How often each kind's revert ended how (`kind outcome`). */
  const outcomes = new Map<string, number>();
  for (let seed = 1; seed <= 240; seed += 1) {
    it(`seed ${seed}`, () => {
      const rand = mulberry32(seed);
      const { store, account, pool, docs } = generate(rand);
      const initial = new Map([...store].map(([k, v]) => [k, strip(v)]));
      const highest = new Map([...store].map(([k, v]) => [k, v.version]));
      const ops: Applied[] = [];
      /** The entries of reverted journal entries and their reversing entries: they stay, and the final books are compared without them. */
      const reversals = new Set<string>();
      let n = 0;
      let day = 0;
      // Times that order as the steps do (t10 after t9).
      const at = (step: number): string => `t${String(step).padStart(4, '0')}`;
      const ctx = (id: string) => ({ staged_operation_id: id, org_id: 'org_1', actor: 'bob', now: `t${n}` });
      const record = (w: JournalWrite) => recordKey(w.collection, w.id);

      const applyOp = (kind: StagedKind, plan: unknown, preconditions: Precondition[] = []): void => {
        n += 1;
        const id = `stg_${n}`;
        const journal =
          journalFromPlan(kind, plan) ??
          (() => {
            const made = planJournalWithLinks(kind, plan, applyBooks(store), ctx(id));
            expect(made.ok, JSON.stringify(made)).to.equal(true);
            return made.ok ? made.value.writes : [];
          })();
        if (journal.length === 0) return;
        const before = new Map(journal.map((w) => [record(w), store.get(record(w)) ?? null]));
        make(store, journal);
        for (const w of journal)
          highest.set(record(w), Math.max(highest.get(record(w)) ?? 0, store.get(record(w))?.version ?? 0));
        ops.push({ id, kind, plan, writes: journal, preconditions, applied_at: at(n), before, reverted: false });
      };

      /** The revert of `op` decided and, when staged, applied; whether it was staged. */
      const revert = (op: Applied): boolean => {
        if (op.kind === 'edit') {
          // An outside edit is undone by hand (a person puts the value back), only while it still holds.
          const w0 = op.writes[0]! as Extract<JournalWrite, { action: 'update' }>;
          if (store.get(record(w0))?.amount_minor !== w0.set.amount_minor) return false;
          for (const w of op.writes) {
            const key = record(w);
            const now = store.get(key)!;
            store.set(key, { ...now, ...(op.before.get(key) as Rec), version: now.version + 1 });
            highest.set(key, now.version + 1);
          }
          op.reverted = true;
          return true;
        }
        const kind = op.kind;
        const records = new Map(op.writes.map((w) => [record(w), store.get(record(w)) ?? null]));
        const subject: RevertSubject = {
          id: op.id,
          kind,
          status: 'applied',
          plan: op.plan,
          preconditions: op.preconditions,
          applied_at: op.applied_at,
          writes: op.writes,
        };
        const later = ops.find((o) => o.kind === 'bank_reconcile' && !o.reverted && o.applied_at > op.applied_at);
        const reads = repairRevertReads(subject, records);
        const entryId = kind === 'journal_entry' ? (op.plan as { ledger_entry_id: string }).ledger_entry_id : null;
        const entryLinks = of<BankLink>(store, 'bank_links').filter((l) => l.ledger_entry_id === entryId);
        const extra =
          kind === 'bank_reconcile'
            ? { later_staged_operation_id: later?.id ?? null }
            : kind === 'journal_entry'
              ? {
                  entry_link_ids: entryLinks.map((l) => l.id),
                  versions: Object.fromEntries(
                    op.preconditions
                      .filter((p) => p.collection === 'bank_transactions')
                      .map((p) => [
                        `bank_transactions/${p.id}`,
                        store.get(`bank_transactions/${p.id}`)?.version ?? null,
                      ]),
                  ),
                  reversing_reserved_version: highest.get(`ledger_entries/${revertReversingEntryId(op.id)}`) ?? 0,
                }
              : kind === 'ledger_link_repair' || kind === 'bank_match'
                ? {
                    versions: Object.fromEntries(
                      [
                        ...reads.transaction_ids.map((id) => `bank_transactions/${id}`),
                        ...reads.entry_ids.map((id) => `ledger_entries/${id}`),
                      ].map((k) => [k, store.get(k)?.version ?? null]),
                    ),
                  }
                : kind === 'statement_import'
                  ? {
                      linked_transaction_ids: of<BankLink>(store, 'bank_links')
                        .map((l) => l.bank_transaction_id)
                        .filter((t) => op.writes.some((w) => w.id === t)),
                    }
                  : kind === 'approval_policy'
                    ? {
                        org_id: 'org_1',
                        current_version: inForce(store).version,
                        later: [...store]
                          .filter(
                            ([k, v]) =>
                              k.startsWith(POLICIES) &&
                              (v.policy_version as number) > (op.plan as ApprovalPolicyPlan).version,
                          )
                          .map(([, v]) => ({
                            version: v.policy_version as number,
                            operation: typeof v.reverts === 'string' ? null : (v.updated_by_operation as string),
                            reverts: typeof v.reverts === 'string' ? v.reverts : null,
                          }))
                          .sort((a, b) => a.version - b.version),
                        previous: policyOf(store, (op.plan as ApprovalPolicyPlan).base_version),
                      }
                    : null;
        const decision = decideRevert(
          subject,
          { records, extra },
          {
            scopes: ['bank:stage'],
            required_scope: 'bank:stage',
            reverts: [],
            reverted_by: null,
            rules: RULES[kind] ?? null,
            lock_date: null,
            pending: [],
            reversal_date: REVERSAL_DATE,
          },
          op.id,
        );
        // The model: every record holds what the apply wrote, and the kind's own conditions.
        const holds = op.writes.every((w) => {
          const now = store.get(record(w));
          if (w.action === 'delete') return now === undefined;
          const fields = w.action === 'update' ? w.set : w.doc;
          return (
            now !== undefined &&
            Object.entries(fields).every(([k, v]) => k === 'version' || json(now[k] ?? null) === json(v ?? null))
          );
        });
        const laterStands = kind === 'bank_reconcile' && later !== undefined;
        // A journal entry's: a link to its entry that its apply did not create.
        const foreignLink = kind === 'journal_entry' && entryLinks.some((l) => !op.writes.some((w) => w.id === l.id));
        const linked =
          kind === 'statement_import' &&
          (extra as { linked_transaction_ids: string[] }).linked_transaction_ids.length > 0;
        // A policy change's: a later policy change applied and not reverted.
        const policyMoved =
          kind === 'approval_policy' &&
          ops.some((o) => o.kind === 'approval_policy' && !o.reverted && o.applied_at > op.applied_at);
        const expected = laterStands
          ? 'not_latest_reconciliation'
          : !holds || linked || foreignLink || policyMoved
            ? 'changed_since_apply'
            : 'staged';
        const outcome = decision.outcome === 'refused' ? decision.code : decision.outcome;
        outcomes.set(`${kind} ${outcome}`, (outcomes.get(`${kind} ${outcome}`) ?? 0) + 1);
        expect(outcome, `${kind} ${op.id}: ${JSON.stringify(decision)}`).to.equal(expected);
        if (decision.outcome !== 'staged') return false;
        n += 1;
        if (kind === 'approval_policy') {
          // The policy it replaced is in force again, as a new version above the one in force: nothing removed.
          const was = inForce(store).version;
          make(store, revertJournal(decision.plan));
          const now = inForce(store);
          expect(now.version).to.equal(was + 1);
          expect(policyContent(now)).to.equal(
            policyContent(policyOf(store, (op.plan as ApprovalPolicyPlan).base_version)),
          );
          op.reverted = true;
          return true;
        }
        make(store, revertJournal(decision.plan));
        for (const w of op.writes) {
          const key = record(w);
          if (kind === 'journal_entry' && w.collection === 'ledger_entries') {
            // Reversed, not deleted: the entry marked reversed, its reversing entry posted with its lines' sides swapped.
            const reversingKey = `ledger_entries/${revertReversingEntryId(op.id)}`;
            const entry = store.get(key)!;
            const reversing = store.get(reversingKey)!;
            expect(strip(entry)).to.deep.equal({
              ...strip({ ...(w as Extract<JournalWrite, { action: 'insert' }>).doc, version: 0 }),
              status: 'reversed',
              reversed_by: reversingKey.slice('ledger_entries/'.length),
            });
            expect(reversing).to.deep.include({ entry_date: REVERSAL_DATE, reversal_of: w.id, status: 'posted' });
            expect(reversing.lines).to.deep.equal(
              (entry.lines as Array<{ account: string; debit_minor: number; credit_minor: number }>).map((l) => ({
                account: l.account,
                debit_minor: l.credit_minor,
                credit_minor: l.debit_minor,
              })),
            );
            expect(reversing.version).to.be.greaterThan(highest.get(reversingKey) ?? 0);
            reversals.add(key).add(reversingKey);
            highest.set(reversingKey, reversing.version);
            highest.set(key, entry.version);
            continue;
          }
          expect(strip(store.get(key)), key).to.deep.equal(strip(op.before.get(key)));
          const v = store.get(key)?.version;
          // Versions never go back: a record written or brought back is above every version it had.
          if (v !== undefined) expect(v, key).to.be.greaterThan(highest.get(key) ?? 0);
          if (v !== undefined) highest.set(key, v);
        }
        op.reverted = true;
        return true;
      };

      const steps = 3 + Math.floor(rand() * 10);
      // Policy changes drawn apart, so the other kinds' draws stay as they were.
      const policyRand = mulberry32(seed + 1_000_000);
      for (let s = 0; s < steps; s += 1) {
        if (policyRand() < 0.25) {
          // A policy change: one of a few policies, so a later change may put back what an earlier one made.
          const base = inForce(store).version;
          applyOp('approval_policy', {
            base_version: base,
            version: base + 1,
            rules: [{ kinds: ['*'], approvals: 1 + Math.floor(policyRand() * 3), approvers: 'any' }],
            agents_may_approve: policyRand() < 0.5,
            unattended: [],
          } satisfies ApprovalPolicyPlan);
        }
        const r = rand();
        const standing = ops.filter((o) => !o.reverted);
        if (r < 0.3 && standing.length > 0) {
          revert(pick(rand, standing));
        } else if (r < 0.4) {
          const open = of<BankTransaction & { id: string }>(store, 'bank_transactions').filter(
            (t) => t.id.startsWith('bt_r') && t.status === 'unreconciled',
          );
          if (open.length === 0) continue;
          day += 1;
          const chosen = open.filter(() => rand() < 0.6);
          const txns = chosen.length > 0 ? chosen : [open[0]!];
          applyOp('bank_reconcile', {
            bank_account_id: account,
            statement: {
              end_date: `2026-03-${String(10 + day)}`,
              closing_balance_minor: day,
              currency: 'EUR',
              reference: null,
            },
            transactions: txns.map((t) => ({ bank_transaction_id: t.id })),
          });
        } else if (r < 0.55) {
          const entries = of<LedgerEntry>(store, 'ledger_entries')
            .map((e) => e.id)
            .filter((id) => /^le_[0-9]+$/.test(id));
          if (rand() < 0.5) {
            // A journal entry: a fee booking a pool transaction for (part of) what it has left unlinked, maybe attaching an open document.
            const txn = pick(rand, pool);
            const unlinked =
              5_000 -
              of<BankLink>(store, 'bank_links')
                .filter((l) => l.bank_transaction_id === txn)
                .reduce((sum, l) => sum + l.amount_minor, 0);
            const books = rand() < 0.7 && unlinked > 0;
            const amount = books ? unlinked : 100 + Math.floor(rand() * 900);
            const open = docs.filter((d) => store.get(`inbox_documents/${d}`)!.status === 'open');
            const document = open.length > 0 && rand() < 0.6 ? pick(rand, open) : null;
            const txnVersion = store.get(`bank_transactions/${txn}`)!.version;
            applyOp(
              'journal_entry',
              {
                ledger_entry_id: `le_j${n + 1}`,
                entry: {
                  entry_date: `2026-05-${String(10 + (n % 20))}`,
                  description: 'Fee',
                  reference: `F${n + 1}`,
                  counterparty_id: 'cp_bank',
                  currency: 'EUR',
                  lines: [
                    { account: '6855', account_name: null, debit_minor: amount, credit_minor: 0 },
                    { account: '1600', account_name: null, debit_minor: 0, credit_minor: amount },
                  ],
                },
                debit_total_minor: amount,
                credit_total_minor: amount,
                settlement_minor: -amount,
                bank_link: books
                  ? {
                      bank_transaction_id: txn,
                      bank_account_id: account,
                      transaction_amount_minor: 5_000,
                      linked_before_minor: 5_000 - unlinked,
                      amount_minor: unlinked,
                    }
                  : null,
                document_id: document,
                note: null,
              },
              books ? [{ collection: 'bank_transactions', id: txn, version: txnVersion }] : [],
            );
          } else {
            // A bank match: new links of pool transactions to entries they are not linked to yet (a journal entry's among them).
            const links = of<BankLink>(store, 'bank_links');
            const targets = [
              ...entries,
              ...ops
                .filter((o) => o.kind === 'journal_entry')
                .map((o) => (o.plan as { ledger_entry_id: string }).ledger_entry_id),
            ];
            const pairs = new Map<
              string,
              { bank_transaction_id: string; ledger_entry_id: string; amount_minor: number }
            >();
            for (let k = 0; k < 1 + Math.floor(rand() * 3); k += 1) {
              const t = pick(rand, pool);
              const e = pick(rand, targets);
              if (links.some((l) => l.bank_transaction_id === t && l.ledger_entry_id === e)) continue;
              pairs.set(`${t}/${e}`, {
                bank_transaction_id: t,
                ledger_entry_id: e,
                amount_minor: 1 + Math.floor(rand() * 400),
              });
            }
            if (pairs.size === 0) continue;
            const plan = { pairs: [...pairs.values()] };
            applyOp('bank_match', plan, [
              ...[...new Set(plan.pairs.map((p) => p.bank_transaction_id))].map((id) => ({
                collection: 'bank_transactions' as const,
                id,
                version: store.get(`bank_transactions/${id}`)!.version,
              })),
              ...[...new Set(plan.pairs.map((p) => p.ledger_entry_id))].map((id) => ({
                collection: 'ledger_entries' as const,
                id,
                version: store.get(`ledger_entries/${id}`)!.version,
              })),
            ]);
            // A journal entry whose entry the match linked, still standing: its revert now (the model says how it ends).
            const linked = ops.find(
              (o) =>
                o.kind === 'journal_entry' &&
                !o.reverted &&
                plan.pairs.some((p) => p.ledger_entry_id === (o.plan as { ledger_entry_id: string }).ledger_entry_id),
            );
            if (linked) revert(linked);
          }
        } else if (r < 0.7) {
          const links = of<BankLink>(store, 'bank_links').filter((l) => pool.includes(l.bank_transaction_id));
          const actions: unknown[] = [];
          const entries = of<LedgerEntry>(store, 'ledger_entries')
            .map((e) => e.id)
            .filter((id) => /^le_[0-9]+$/.test(id));
          const taken = new Map<string, number>();
          for (let a = 0; a < 1 + Math.floor(rand() * 3); a += 1) {
            const kind = rand();
            const link = links.length > 0 ? pick(rand, links) : null;
            const left = link ? link.amount_minor - (taken.get(link.id) ?? 0) : 0;
            if (link && left > 0 && kind < 0.5) {
              const amount = 1 + Math.floor(rand() * left);
              taken.set(link.id, (taken.get(link.id) ?? 0) + amount);
              actions.push({
                kind: 'move',
                bank_transaction_id: link.bank_transaction_id,
                link_id: link.id,
                from_ledger_entry_id: link.ledger_entry_id,
                to_ledger_entry_id: pick(rand, entries),
                amount_minor: amount,
              });
            } else if (link && left > 0 && kind < 0.7) {
              const amount = rand() < 0.5 ? left : 1 + Math.floor(rand() * left);
              taken.set(link.id, (taken.get(link.id) ?? 0) + amount);
              actions.push({
                kind: 'unlink',
                bank_transaction_id: link.bank_transaction_id,
                link_id: link.id,
                ledger_entry_id: link.ledger_entry_id,
                amount_minor: amount,
              });
            } else {
              actions.push({
                kind: 'link',
                bank_transaction_id: pick(rand, pool),
                ledger_entry_id: pick(rand, entries),
                amount_minor: 1 + Math.floor(rand() * 500),
              });
            }
          }
          // What the repair read: its transactions and entries at their versions now.
          const preconditions: Precondition[] = [
            ...pool.map((id) => ({
              collection: 'bank_transactions' as const,
              id,
              version: store.get(`bank_transactions/${id}`)!.version,
            })),
            ...entries.map((id) => ({
              collection: 'ledger_entries' as const,
              id,
              version: store.get(`ledger_entries/${id}`)!.version,
            })),
          ];
          applyOp('ledger_link_repair', { actions }, preconditions);
        } else if (r < 0.8) {
          const count = 1 + Math.floor(rand() * 3);
          applyOp('statement_import', {
            bank_account_id: account,
            new_transactions: Array.from({ length: count }, (_, i) => ({
              id: `bt_i${n + 1}_${i}`,
              booking_date: `2026-04-0${1 + i}`,
              value_date: null,
              amount_minor: 100 * (i + 1),
              currency: 'EUR',
              counterparty_id: null,
              counterparty_name: null,
              counterparty_iban: null,
              remittance_info: null,
              bank_reference: `R${n + 1}_${i}`,
            })),
          });
        } else if (r < 0.9) {
          const open = docs.filter((d) => store.get(`inbox_documents/${d}`)!.status !== 'archived');
          if (open.length < 2) continue;
          const members = open.filter(() => rand() < 0.7).slice(0, 3);
          if (members.length < 2) continue;
          const keep = pick(rand, members);
          applyOp('inbox_duplicates_resolve', {
            group_id: 'grp_x',
            member_ids: members,
            resolution: 'archive_duplicates',
            keep_document_id: keep,
            archive_document_ids: members.filter((m) => m !== keep),
            note: null,
          });
        } else {
          // An outside edit of a link (another tool, a person): any revert of an apply that wrote it is refused.
          const links = of<BankLink>(store, 'bank_links');
          if (links.length === 0) continue;
          const link = pick(rand, links);
          const key = `bank_links/${link.id}`;
          const now = store.get(key)!;
          n += 1;
          const w: JournalWrite = {
            action: 'update',
            collection: 'bank_links',
            id: link.id,
            version: now.version,
            set: { amount_minor: (now.amount_minor as number) + 1 },
            before: { amount_minor: now.amount_minor },
          };
          const before = new Map([[key, now]]);
          make(store, [w]);
          highest.set(key, now.version + 1);
          ops.push({
            id: `edit_${n}`,
            kind: 'edit',
            plan: null,
            writes: [w],
            preconditions: [],
            applied_at: at(n),
            before,
            reverted: false,
          });
        }
      }
      // Everything still standing, latest first: each revert is staged, and the books are the generated ones.
      for (const op of [...ops].reverse()) if (!op.reverted) expect(revert(op), op.id).to.equal(true);
      // Policy versions only go up: the one in force is compared, not the versions kept.
      expect(policyContent(inForce(store))).to.equal(policyContent(DEFAULT_POLICY));
      if (ops.some((o) => o.kind === 'approval_policy')) sawPolicies += 1;
      const final = new Map(
        [...store].filter(([k]) => !reversals.has(k) && !k.startsWith(POLICIES)).map(([k, v]) => [k, strip(v)]),
      );
      if (ops.some((o) => o.kind === 'journal_entry')) sawEntries += 1;
      if (ops.some((o) => o.kind === 'bank_match')) sawMatches += 1;
      expect(Object.fromEntries(final)).to.deep.equal(Object.fromEntries(initial));
      for (const c of COLLECTIONS)
        expect(of(store, c).length - [...reversals].filter((k) => k.startsWith(`${c}/`)).length).to.equal(
          [...initial.keys()].filter((k) => k.startsWith(`${c}/`)).length,
        );
    });
  }
  it('the seeds drew journal entries, bank matches and policy changes, staged and refused', () => {
    expect(sawEntries).to.be.at.least(50);
    expect(sawMatches).to.be.at.least(50);
    expect(sawPolicies).to.be.at.least(50);
    // Both were reverted, and both refused for a change since their apply (an edit or a repair of their links).
    for (const key of [
      'journal_entry staged',
      'journal_entry changed_since_apply',
      'bank_match staged',
      'bank_match changed_since_apply',
      'approval_policy staged',
      'approval_policy changed_since_apply',
    ])
      expect(outcomes.get(key) ?? 0, `${key}: ${JSON.stringify([...outcomes])}`).to.be.at.least(3);
  });
});
