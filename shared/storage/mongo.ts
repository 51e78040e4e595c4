import { MongoClient, type Db } from 'mongodb';

export interface Mongo {
  client: MongoClient;
  db: Db;
}

/** The database named in the URL's path, `bookstage` when there is none. */
export function databaseName(url: string): string {
  const path = new URL(url.replace(/^mongodb(\+srv)?:/, 'http:')).pathname.replace(/^\//, '');
  return decodeURIComponent(path) || 'bookstage';
}

/**
 * `serverSelectionTimeoutMS` is how long an operation waits for a reachable
 * server: the API keeps it short (an outage answers 503 within 2 s), workers
 * and commands may wait longer.
 */
export async function connectMongo(
  url: string,
  serverSelectionTimeoutMS = 10_000,
  options: { lazy?: boolean; socketTimeoutMS?: number } = {},
): Promise<Mongo> {
  // socketTimeoutMS (0: none, the driver's default): how long a read may wait on a connection that is open but silent (a half-open socket).
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS,
    maxPoolSize: 20,
    socketTimeoutMS: options.socketTimeoutMS ?? 0,
  });
  // lazy: the driver connects on the first operation, so a process can start while MongoDB is down.
  if (!options.lazy) await client.connect();
  return { client, db: client.db(databaseName(url)) };
}
