// Whether the server behind a connection is FerretDB: what chooses FerretDB's
// DriverStrategy for the driver's adapter (select.ts) and what the SQL
// helpers check first.
import type { Db } from 'mongodb';

const ferretDbByDb = new WeakMap<Db, Promise<boolean>>();

/** FerretDB names itself in buildInfo (`ferretdbVersion`); asked once per connection. */
export function isFerretDb(db: Db): Promise<boolean> {
  let known = ferretDbByDb.get(db);
  if (!known) {
    known = db
      .admin()
      .command({ buildInfo: 1 })
      .then(
        (info) => typeof info.ferretdbVersion === 'string',
        (err: unknown) => {
          ferretDbByDb.delete(db);
          throw err;
        },
      );
    ferretDbByDb.set(db, known);
  }
  return known;
}
