// Bulk writes in commands FerretDB 1.x can always finish (docs/indexes.md
// "Updates per command"): FerretDB 1.24 keeps one connection of its
// PostgreSQL pool for each single-document update of an `update` command that
// matched a document, until the command ends; a command (or commands at once)
// with more matched updates than its pool waits for a connection for good,
// and the whole server with it. MongoDB pays a few more round trips.
import type { AnyBulkWriteOperation, BulkWriteOptions, Collection, Document } from 'mongodb';

/** The most writes sent in one bulkWrite command. */
export const WRITES_PER_COMMAND = 32;

export interface BulkCounts {
  insertedCount: number;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
}

/**
 * `collection.bulkWrite(ops)` in commands of at most WRITES_PER_COMMAND
 * writes, one after the other, their counts summed. A command that throws
 * ends the call: the commands before it stand, the ones after it are not sent.
 */
export async function bulkWriteBounded<T extends Document>(
  collection: Collection<T>,
  ops: readonly AnyBulkWriteOperation<T>[],
  options: BulkWriteOptions,
): Promise<BulkCounts> {
  const counts: BulkCounts = { insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0 };
  for (let i = 0; i < ops.length; i += WRITES_PER_COMMAND) {
    const r = await collection.bulkWrite(ops.slice(i, i + WRITES_PER_COMMAND), options);
    counts.insertedCount += r.insertedCount;
    counts.matchedCount += r.matchedCount;
    counts.modifiedCount += r.modifiedCount;
    counts.deletedCount += r.deletedCount;
    counts.upsertedCount += r.upsertedCount;
  }
  return counts;
}
