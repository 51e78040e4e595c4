import { MongoClient, type Db } from 'mongodb';

export interface Mongo { client: MongoClient; db: Db }

/** The database named in the URL's path, `bookstage` when there is none. */
export function databaseName(url: string): string {
  const path = new URL(url.replace(/^mongodb(\+srv)?:/, 'http:')).pathname.replace(/^\//, '');
  return decodeURIComponent(path) || 'bookstage';
}

export async function connectMongo(url: string): Promise<Mongo> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000, maxPoolSize: 20 });
  await client.connect();
  return { client, db: client.db(databaseName(url)) };
}
