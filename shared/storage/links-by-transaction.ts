// The links of transactions, read once per figures refresh: the day totals
// and the counterparty figures both read the links of the transactions they
// cover (after a link repair, the same ten thousand), and each transaction's
// links are read by whichever asks first, the other waiting for that read.
import type { Db } from 'mongodb';
import type { CounterpartyLink } from '../domain/book-reads.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';

/** What a figures refresh shares: every master's seq after the one bump, and the links read once. */
export interface BumpedRefresh {
  seqs: ReadonlyMap<string, number>;
  links: LinksByTransaction;
}

/** A link as the figures read it, with its id (a link read twice is counted once). */
export type FigureLink = CounterpartyLink & { id: string };

export class LinksByTransaction {
  private readonly reads = new Map<string, Promise<Map<string, FigureLink[]>>>();

  constructor(
    private readonly db: Db,
    private readonly orgId: string,
  ) {}

  /** Every link of these transactions, as stored when each was first asked for. */
  async of(transactionIds: Iterable<string>): Promise<FigureLink[]> {
    const wanted = [...new Set(transactionIds)];
    const missing = wanted.filter((id) => !this.reads.has(id));
    if (missing.length > 0) {
      const read = this.read(missing);
      for (const id of missing) this.reads.set(id, read);
    }
    const reads = await Promise.all(wanted.map((id) => this.reads.get(id)!));
    const out: FigureLink[] = [];
    wanted.forEach((id, i) => {
      for (const l of reads[i]!.get(id) ?? []) out.push(l);
    });
    return out;
  }

  private async read(transactionIds: readonly string[]): Promise<Map<string, FigureLink[]>> {
    const docs = await (
      await storeAdapter(this.db)
    ).where({
      collection: collections(this.db).bankLinks.collectionName,
      equalities: { org_id: this.orgId },
      any: { field: 'bank_transaction_id', values: transactionIds },
      fields: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
      owner: this.orgId,
    });
    const byTransaction = new Map<string, FigureLink[]>();
    for (const d of docs) {
      const link: FigureLink = {
        id: String(d._id),
        bank_transaction_id: String(d.bank_transaction_id),
        ledger_entry_id: String(d.ledger_entry_id),
        amount_minor: Number(d.amount_minor),
      };
      const own = byTransaction.get(link.bank_transaction_id);
      if (own) own.push(link);
      else byTransaction.set(link.bank_transaction_id, [link]);
    }
    return byTransaction;
  }
}
