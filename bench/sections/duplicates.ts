// The inbox duplicate overview at growing inbox sizes: the first page, and
// the next page by its cursor, through the real API and worker.
// (bench/inbox-duplicates.ts compares the read paths in depth.)
import { call, duplicatesPath } from '../lib/http.js';
import { inboxFile, load, tokenFor } from '../lib/data.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface DuplicatesResult {
  first_page_ms: Record<string, number | null>;
  next_page_ms: Record<string, number | null>;
  growth_10k_to_100k: number | null;
}

const PAGES_PER_RUN = 3;

export async function measureDuplicates(env: BenchEnv, sizes: number[], repeat: number): Promise<DuplicatesResult> {
  const first: Record<string, number | null> = {};
  const next: Record<string, number | null> = {};
  for (const size of sizes) {
    const orgId = `org_dup_${size}`;
    const loadMs = await timed(() => load(env.db, inboxFile(orgId, size, size)));
    const token = await tokenFor(env.db, orgId);
    env.log(`  duplicates: loaded ${size} inbox documents in ${(loadMs / 1000).toFixed(1)} s`);
    const pagePair = async (): Promise<{ first: number; next: number | null }> => {
      const page = await call(env.baseUrl, token, 'GET', `${duplicatesPath}?limit=50`);
      if (page.status !== 200)
        throw new Error(`duplicate overview: HTTP ${page.status} ${JSON.stringify(page.body).slice(0, 300)}`);
      const cursor = (page.body as { data: { next_cursor: string | null } }).data.next_cursor;
      const after = cursor
        ? await call(env.baseUrl, token, 'GET', `${duplicatesPath}?limit=50&cursor=${encodeURIComponent(cursor)}`)
        : null;
      if (after && after.status !== 200) throw new Error(`duplicate overview next page: HTTP ${after.status}`);
      return { first: page.ms, next: after ? after.ms : null };
    };
    // The first pair warms the path (and, with a materialized overview, computes it once): not counted.
    await pagePair();
    const firstTimes: number[] = [];
    const nextTimes: number[] = [];
    await env.profile(`duplicate pages, ${size} docs`, async () => {
      for (let i = 0; i < repeat * PAGES_PER_RUN; i += 1) {
        const pair = await pagePair();
        firstTimes.push(pair.first);
        if (pair.next !== null) nextTimes.push(pair.next);
      }
    });
    first[String(size)] = round(median(firstTimes));
    next[String(size)] = nextTimes.length > 0 ? round(median(nextTimes)) : null;
  }
  const growth = first['10000'] && first['100000'] ? round(first['100000'] / first['10000']) : null;
  return { first_page_ms: first, next_page_ms: next, growth_10k_to_100k: growth };
}
