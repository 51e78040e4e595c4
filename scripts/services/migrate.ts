// The store's start-up migration, run by `npm run services -- start` and
// `npm start` before the API and worker serve: every collection, its indexes,
// and on the FerretDB this script started the PostgreSQL GIN indexes and
// plan_cache_mode (docs/indexes.md). The API and worker run the same step
// themselves when FERRETDB_POSTGRES_URL is set; this one covers the database
// named in MONGO_URL before anything else connects.
import { ensureIndexes } from '../../shared/storage/indexes.js';
import { connectMongo } from '../../shared/storage/mongo.js';
import type { ServiceUrls } from './lifecycle.js';
import { log } from './processes.js';

export async function migrateStore(urls: ServiceUrls): Promise<void> {
  if (!urls.postgresUrl) return;
  const mongo = await connectMongo(urls.mongoUrl);
  try {
    const report = await ensureIndexes(mongo.db, { postgresUrl: urls.postgresUrl });
    if (report) {
      log(
        `PostgreSQL GIN and page indexes of ${mongo.db.databaseName}: ${report.created.length} created, ${report.existing} present; plan_cache_mode=force_custom_plan ${report.force_custom_plan ? 'set' : 'NOT set'}`,
      );
      for (const warning of report.warnings) log(`warning: ${warning}`);
    }
    log(
      `FerretDB stores in ${urls.postgresUrl}: give the API and worker FERRETDB_POSTGRES_URL=${urls.postgresUrl} to keep other databases indexed`,
    );
  } finally {
    await mongo.client.close();
  }
}
