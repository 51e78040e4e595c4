// Reading by a long list of ids in chunks, a few chunks at a time: how the
// driver's adapter sends a list MongoDB answers from its indexes
// (shared/storage/mongo-adapter.ts), and how much of a list one SQL
// statement carries on FerretDB 1.x (shared/storage/ferretdb/adapter.ts).

/** Ids sent per query. */
export const IN_CHUNK_SIZE = 1000;
const IN_CHUNK_CONCURRENCY = 4;

/**
 * Run `read` over `ids` in chunks of IN_CHUNK_SIZE (a few chunks at a time)
 * and concatenate the answers, in no particular order.
 */
export async function readInChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK_SIZE) chunks.push(ids.slice(i, i + IN_CHUNK_SIZE));
  const out: T[] = [];
  for (let i = 0; i < chunks.length; i += IN_CHUNK_CONCURRENCY) {
    const answers = await Promise.all(chunks.slice(i, i + IN_CHUNK_CONCURRENCY).map(read));
    for (const answer of answers) for (const item of answer) out.push(item);
  }
  return out;
}
