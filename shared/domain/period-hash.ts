// The fingerprint of a closed period: what a period close stores, and what the
// period read recomputes to tell whether the period's records are still as
// they were closed.
import { compareIds, type BankTransaction, type IsoDate, type LedgerEntry } from './books.js';
import { canonicalJson } from './plan-hash.js';
import { createHash } from 'node:crypto';

type PeriodEntry = Pick<LedgerEntry, 'id' | 'entry_date' | 'currency' | 'lines'>;
type PeriodTransaction = Pick<BankTransaction, 'id' | 'bank_account_id' | 'booking_date' | 'amount_minor' | 'currency'>;

/**
 * Lowercase hex SHA-256 of the RFC 8785 canonical JSON of
 * `{"entries": […], "bank_transactions": […]}`: the entries and bank
 * transactions dated on or before `through`, each list in id order, each
 * record with the fields that a period's lock protects.
 */
export function periodHash(
  through: IsoDate,
  entries: readonly PeriodEntry[],
  transactions: readonly PeriodTransaction[],
): string {
  const inPeriod = {
    entries: entries
      .filter((e) => e.entry_date <= through)
      .map((e) => ({
        id: e.id,
        entry_date: e.entry_date,
        currency: e.currency,
        lines: e.lines.map((l) => ({ account: l.account, debit_minor: l.debit_minor, credit_minor: l.credit_minor })),
      }))
      .sort((a, b) => compareIds(a.id, b.id)),
    bank_transactions: transactions
      .filter((t) => t.booking_date <= through)
      .map((t) => ({
        id: t.id,
        bank_account_id: t.bank_account_id,
        booking_date: t.booking_date,
        amount_minor: t.amount_minor,
        currency: t.currency,
      }))
      .sort((a, b) => compareIds(a.id, b.id)),
  };
  return createHash('sha256').update(canonicalJson(inPeriod), 'utf8').digest('hex');
}
