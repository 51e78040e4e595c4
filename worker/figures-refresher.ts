// The kept figures an apply left stale (docs/reference/book-reads.md "Kept
// figures"), computed by the worker in the background once the job that
// left them has answered: the apply's caller does not wait for figures no
// one has asked for yet, and a reader that comes first computes them itself
// (readFresh). One refresh per organisation at a time in this process; one
// asked for while it runs runs once more after it, logged with the request
// of the last job that asked. A refresh that fails, or a worker that stops
// first, leaves them stale for the next reader. A reader in this process
// waits for the round under way (`settled`) before it freshens: it would
// otherwise compute the same figures beside it, and lose to it.
import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import { freshenFigures } from '../shared/storage/book-figures.js';

export class FiguresRefresher {
  private readonly running = new Map<string, Promise<void>>();
  /** The round under way of each organisation's refresh: one freshen, never rejected. */
  private readonly rounds = new Map<string, Promise<void>>();
  /** The organisations asked for again while their refresh ran, with the logger of the job that asked last. */
  private readonly again = new Map<string, Logger>();
  private closing = false;

  constructor(
    private readonly db: Db,
    private readonly freshen: (db: Db, orgId: string) => Promise<boolean> = freshenFigures,
  ) {}

  /** Compute the organisation's stale figures in the background; `log`: the asking job's (its request id). */
  request(orgId: string, log: Logger): void {
    if (this.closing) return;
    if (this.running.has(orgId)) {
      this.again.set(orgId, log);
      return;
    }
    this.running.set(orgId, this.run(orgId, log));
  }

  /**
   * Resolves when the organisation's round under way ends (at once when
   * there is none), whatever its outcome. why only the round: applies that
   * keep coming keep the refresh going, and a reader must not wait for them.
   */
  settled(orgId: string): Promise<void> {
    return this.rounds.get(orgId) ?? Promise.resolve();
  }

  /** Takes no more requests and waits for the refreshes under way. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.running.values());
  }

  private async run(orgId: string, first: Logger): Promise<void> {
    for (let log = first; ;) {
      this.again.delete(orgId);
      const started = Date.now();
      const round = this.freshen(this.db, orgId).then(
        (changed) => {
          if (changed) log.info({ org_id: orgId, ms: Date.now() - started }, 'kept figures refreshed');
        },
        (err: unknown) =>
          log.warn({ err, org_id: orgId }, 'refreshing kept figures failed; the next reader computes them'),
      );
      this.rounds.set(orgId, round);
      await round;
      this.rounds.delete(orgId);
      const next = this.again.get(orgId);
      if (next === undefined || this.closing) {
        this.running.delete(orgId);
        return;
      }
      log = next;
    }
  }
}
