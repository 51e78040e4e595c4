import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';

/**
 * The job queues' Redis: one server (`redis://`, `rediss://`) or a Redis
 * Cluster (`redis+cluster://host:port,host:port`, any reachable nodes as
 * seeds; docs/operating/scaling.md). Both speak the same commands to BullMQ, the rate
 * limiter and /readyz.
 */
export type RedisClient = Redis | Cluster;

const CLUSTER_SCHEME = 'redis+cluster:';

export function isClusterUrl(url: string): boolean {
  return url.startsWith(`${CLUSTER_SCHEME}//`);
}

/** The seed nodes and credentials of a `redis+cluster://[user:password@]host:port,host:port` URL. */
export function clusterSeeds(url: string): { nodes: ClusterNode[]; username?: string; password?: string } {
  const rest = url.slice(`${CLUSTER_SCHEME}//`.length).replace(/\/.*$/, '');
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  const hosts = at >= 0 ? rest.slice(at + 1) : rest;
  const nodes = hosts
    .split(',')
    .filter(Boolean)
    .map((hostPort): ClusterNode => {
      const colon = hostPort.lastIndexOf(':');
      const port = colon >= 0 ? Number(hostPort.slice(colon + 1)) : 6379;
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new Error(`redis+cluster URL: bad port in ${hostPort}`);
      return { host: colon >= 0 ? hostPort.slice(0, colon).replace(/^\[|\]$/g, '') : hostPort, port };
    });
  if (nodes.length === 0) throw new Error('redis+cluster URL: no host:port');
  const [user, ...password] = auth ? auth.split(':') : [];
  return {
    nodes,
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(password.length > 0 ? { password: decodeURIComponent(password.join(':')) } : {}),
  };
}

/**
 * How a cluster client rides out a failover: a moved slot or a cluster that is
 * down for a moment (a master lost, its replica not yet promoted) is retried
 * after a short pause, and the slot table is refreshed.
 */
function cluster(url: string, node: RedisOptions, options: ClusterOptions): Cluster {
  const { nodes, username, password } = clusterSeeds(url);
  return new Cluster(nodes, {
    ...options,
    redisOptions: { ...node, ...(username ? { username } : {}), ...(password ? { password } : {}) },
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    slotsRefreshTimeout: 2000,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
  });
}

/**
 * A Redis connection for BullMQ's blocking parts (workers, queue events):
 * `maxRetriesPerRequest: null` is what BullMQ requires there, and it makes a
 * Redis restart a pause, not a failure.
 *
 * On a cluster, without ioredis' cluster ready check (on by default). That
 * check asks one node for `cluster_state`; while a master is lost and its
 * replica not yet promoted the answer is `fail`, and ioredis drops the
 * connection and reconnects by itself, but the promise of the connect() that
 * ran the check never settles. A BullMQ worker awaits exactly that promise:
 * when its blocking command outlives its time-out it disconnects the blocking
 * client and connects it again. One such reconnect during a failover left the
 * worker waiting for good, and the jobs accepted after the failover stayed
 * waiting (docs/operating/scaling.md). Without the check, connect() settles
 * once the slot table is read; a command sent while a slot has no master
 * fails with CLUSTERDOWN and is retried, like any other failover error.
 */
export function createRedis(url: string): RedisClient {
  const node: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  if (isClusterUrl(url)) return quiet(cluster(url, node, { enableReadyCheck: false }));
  return quiet(new Redis(url, node));
}

/**
 * A Redis connection for the API's producer (adding and reading jobs): while
 * Redis is unreachable a command fails at once instead of queueing until it
 * returns, so a request answers 503 fast and did nothing. ioredis keeps
 * reconnecting in the background; the next request after Redis is back works.
 * On a cluster the same holds per slot: while the master of a queue's slot is
 * gone and no replica has taken over, its commands fail and the call answers 503.
 */
export function createProducerRedis(url: string): RedisClient {
  const node: RedisOptions = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    connectTimeout: 1000,
  };
  if (isClusterUrl(url))
    return quiet(cluster(url, node, { enableOfflineQueue: false, enableReadyCheck: true, maxRedirections: 4 }));
  return quiet(new Redis(url, node));
}

/**
 * A lost connection is reported by the commands that fail on it (and by
 * /readyz); the client reconnects by itself. Without a listener, ioredis
 * prints every reconnect failure as an unhandled error event.
 */
function quiet<T extends RedisClient>(redis: T): T {
  redis.on('error', () => undefined);
  return redis;
}
