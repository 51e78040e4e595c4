// Which adapter of the store port serves a `Db` handle (docs/design/architecture.md
// "The store port"). The runtime chooses once at start (chooseStoreAdapter);
// storage functions keep taking the `Db` they always took and ask
// storeAdapter(db) for the port. A handle nobody bound is served by the
// driver's adapter, with the DriverStrategy of the server behind it.
import type { Db } from 'mongodb';
import { acceleratedAdapter, driverAdapter } from './ferretdb/select.js';
import type { StoreLogger, StorePort } from './port.js';

interface Binding {
  choose: () => Promise<StorePort>;
  chosen?: Promise<StorePort>;
}

const bindings = new WeakMap<Db, Binding>();

/** Serve `db` by `adapter`, or by what `choose` answers the first time it is asked (asked again after a failure). */
export function bindStoreAdapter(db: Db, adapter: StorePort | (() => Promise<StorePort>)): void {
  bindings.set(db, { choose: typeof adapter === 'function' ? adapter : () => Promise.resolve(adapter) });
}

/** The port serving `db`. */
export function storeAdapter(db: Db): Promise<StorePort> {
  let binding = bindings.get(db);
  if (!binding) {
    binding = { choose: () => driverAdapter(db) };
    bindings.set(db, binding);
  }
  if (!binding.chosen) {
    const chosen = binding.choose();
    binding.chosen = chosen;
    // A store that cannot be asked yet (the API starts while it is down) is asked again on the next call.
    const held = binding;
    chosen.catch(() => {
      if (held.chosen === chosen) delete held.chosen;
    });
  }
  return binding.chosen;
}

/** Let go of the adapter's own connections (the `Db` stays open); the handle is then served by the mongo adapter. */
export async function closeStoreAdapter(db: Db): Promise<void> {
  const binding = bindings.get(db);
  bindings.delete(db);
  const adapter = await binding?.chosen?.catch(() => undefined);
  await adapter?.close();
}

export interface ChooseOptions {
  /** FERRETDB_POSTGRES_URL: the PostgreSQL database behind FerretDB 1.x; without it, the mongo adapter. */
  postgresUrl?: string | undefined;
  logger?: StoreLogger | undefined;
}

/**
 * Bind `db` to its adapter, chosen on its first use: with a PostgreSQL URL,
 * the FerretDB one when the store is FerretDB 1.x with its tables there;
 * otherwise the driver's, said once in the log.
 */
export function chooseStoreAdapter(db: Db, options: ChooseOptions): void {
  const { postgresUrl, logger } = options;
  if (!postgresUrl) {
    bindStoreAdapter(db, () => driverAdapter(db));
    return;
  }
  bindStoreAdapter(db, async () => {
    const choice = await acceleratedAdapter(db, postgresUrl);
    if ('adapter' in choice) {
      logger?.info({ database: db.databaseName, adapter: choice.adapter.name }, 'store adapter chosen');
      return choice.adapter;
    }
    logger?.warn(
      { database: db.databaseName, adapter: choice.driver.name, server: choice.server, reason: choice.reason },
      'FERRETDB_POSTGRES_URL is set but SQL cannot serve this store; running the driver adapter',
    );
    return choice.driver;
  });
}
