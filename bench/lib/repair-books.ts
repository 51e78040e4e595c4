// Books with one big repair records: one account, one counterparty, n
// unreconciled transactions and n open entries, a third of the links on the
// wrong entry. The plan has real work (moves, creates) and is the same for
// the same n. Used for the pure plan at 100k and the worker-scaling jobs.
import type { BooksFile } from '../../shared/domain/books-file.js';
import type { LinkRepairInput } from '../../shared/kinds/ledger-link-repair/plan.js';

const day = (n: number): string => new Date(Date.UTC(2025, 0, 1) + (n % 360) * 86_400_000).toISOString().slice(0, 10);
const pad = (n: number): string => String(n).padStart(7, '0');

export const BIG_ACCOUNT = (orgId: string): string => `ba_${orgId}_big`;
export const BIG_COUNTERPARTY = (orgId: string): string => `cp_${orgId}_big`;

export function bigRepairBooks(orgId: string, n: number): BooksFile {
  const account = BIG_ACCOUNT(orgId);
  const counterparty = BIG_COUNTERPARTY(orgId);
  const entries: BooksFile['ledger_entries'] = [];
  const transactions: BooksFile['bank_transactions'] = [];
  const links: BooksFile['bank_links'] = [];
  for (let i = 0; i < n; i += 1) {
    const amount = 1000 + ((i * 7919) % 50_000);
    entries.push({
      id: `le_${orgId}_${pad(i)}`,
      entry_date: day(Math.floor((i * 360) / n)),
      description: `invoice ${i}`,
      reference: `RE-${i}`,
      counterparty_id: counterparty,
      currency: 'EUR',
      status: 'posted',
      reversal_of: null,
      reversed_by: null,
      lines: [
        { account: '1400', debit_minor: amount, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: amount },
      ],
    });
    transactions.push({
      id: `bt_${orgId}_${pad(i)}`,
      bank_account_id: account,
      booking_date: day(Math.floor((i * 360) / n) + 2),
      amount_minor: amount,
      currency: 'EUR',
      counterparty_id: counterparty,
      counterparty_name: 'Big Customer',
      remittance_info: '',
      status: 'unreconciled',
      reconciliation_id: null,
    });
    // Every third transaction is linked to the entry after its own: the plan moves it.
    if (i % 3 === 0 && i + 1 < n) {
      links.push({
        id: `lnk_${orgId}_${pad(i)}`,
        bank_transaction_id: `bt_${orgId}_${pad(i)}`,
        ledger_entry_id: `le_${orgId}_${pad(i + 1)}`,
        amount_minor: Math.min(amount, 1000 + (((i + 1) * 7919) % 50_000)),
        created_at: '2025-01-01T00:00:00.000Z',
        created_by: 'bench',
      });
    }
  }
  return {
    org: {
      id: orgId,
      name: orgId,
      base_currency: 'EUR',
      lock_date: null,
      settlement_accounts: ['1400', '1600'],
      require_distinct_approver: true,
    },
    ledger_entries: entries,
    bank_accounts: [
      {
        id: account,
        name: 'Big',
        currency: 'EUR',
        ledger_account: '1200',
        reconciled_through: null,
        opening_balance_minor: 0,
      },
    ],
    bank_transactions: transactions,
    bank_links: links,
    inbox_documents: [],
  };
}

/**
 * The same books as the pure rule's input (what the job would have loaded),
 * one shared shape per collection as the store's reads give (fromStored in
 * shared/storage/documents.ts). why it matters: objects built by
 * `{ ...record, version: 1 }` past the first few each got a hidden class of
 * their own, so every field read in the plan became a megamorphic lookup
 * (≈ 0.2 µs, most of the plan's time at 100k). The JSON round trip at the
 * end settles both the shapes and the strings.
 */
export function bigRepairInput(orgId: string, n: number): LinkRepairInput {
  const file = bigRepairBooks(orgId, n);
  const input: LinkRepairInput = {
    account: Object.assign({}, file.bank_accounts[0]!, { version: 1 }),
    counterparty_id: BIG_COUNTERPARTY(orgId),
    as_of: '2025-12-31',
    settlement_accounts: file.org.settlement_accounts,
    transactions: file.bank_transactions.map((t) =>
      Object.assign({}, t, { reconciliation_id: t.reconciliation_id ?? null, version: 1 }),
    ),
    entries: file.ledger_entries.map((e) =>
      Object.assign({}, e, { reversal_of: e.reversal_of ?? null, reversed_by: e.reversed_by ?? null, version: 1 }),
    ),
    links: file.bank_links.map((l) => Object.assign({}, l, { version: 1 })),
  };
  // why through JSON: a job's records are parsed from JSON (node-postgres'
  // jsonb rows) or decoded from BSON, and their strings are flat. The ids
  // built above by template are concatenations, each read through one more
  // indirection: the plan_hash, which reads 8M id characters at 100k, took
  // ≈ 30% longer on them. JSON.parse gives each collection one shape too.
  return JSON.parse(JSON.stringify(input)) as LinkRepairInput;
}
