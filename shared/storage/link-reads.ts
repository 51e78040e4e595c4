// The links a refresh reads (the kept figures', the open amounts'), each read
// once: the day totals and the counterparty figures of one refresh read the
// links of the same transactions (after a link repair, the same twenty
// thousand links). A link list asked for is read by whoever asks first, the
// others waiting for that read.
import type { Db } from 'mongodb';
import type { CounterpartyLink } from '../domain/book-reads.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';

/** What a figures refresh shares: every master's seq after the one bump, and the links read once. */
export interface BumpedRefresh {
  seqs: ReadonlyMap<string, number>;
  links: LinkReads;
}

/** A link as the figures read it, with its id (a link read twice is counted once). */
export type FigureLink = CounterpartyLink & { id: string };

type LinkField = 'bank_transaction_id' | 'ledger_entry_id';

export class LinkReads {
  private readonly reads: Record<LinkField, Map<string, Promise<Map<string, FigureLink[]>>>> = {
    bank_transaction_id: new Map(),
    ledger_entry_id: new Map(),
  };
  constructor(
    private readonly db: Db,
    private readonly orgId: string,
  ) {}

  /** Every link of these transactions, as stored when each was first asked for. */
  ofTransactions(ids: Iterable<string>): Promise<FigureLink[]> {
    return this.of('bank_transaction_id', ids);
  }

  /** Every link of these entries, as stored when each was first asked for. */
  ofEntries(ids: Iterable<string>): Promise<FigureLink[]> {
    return this.of('ledger_entry_id', ids);
  }

  private async of(field: LinkField, ids: Iterable<string>): Promise<FigureLink[]> {
    const reads = this.reads[field];
    const wanted = [...new Set(ids)];
    const missing = wanted.filter((id) => !reads.has(id));
    if (missing.length > 0) {
      const read = this.read(field, missing);
      for (const id of missing) reads.set(id, read);
    }
    const done = await Promise.all(wanted.map((id) => reads.get(id)!));
    const out: FigureLink[] = [];
    wanted.forEach((id, i) => {
      for (const l of done[i]!.get(id) ?? []) out.push(l);
    });
    return out;
  }

  private async read(field: LinkField, ids: readonly string[]): Promise<Map<string, FigureLink[]>> {
    const docs = await (
      await storeAdapter(this.db)
    ).where({
      collection: collections(this.db).bankLinks.collectionName,
      equalities: { org_id: this.orgId },
      any: { field, values: ids },
      fields: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
      owner: this.orgId,
    });
    const byKey = new Map<string, FigureLink[]>();
    for (const d of docs) {
      const link: FigureLink = {
        id: String(d._id),
        bank_transaction_id: String(d.bank_transaction_id),
        ledger_entry_id: String(d.ledger_entry_id),
        amount_minor: Number(d.amount_minor),
      };
      const own = byKey.get(link[field]);
      if (own) own.push(link);
      else byKey.set(link[field], [link]);
    }
    return byKey;
  }
}
