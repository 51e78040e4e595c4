// The second way to get servers (docs/guide/quick-start.md "Where the servers come from"): a Docker engine that answers.
// testcontainers is a dev dependency and is only loaded when an engine seems
// to be there.
import { existsSync } from 'node:fs';
import { log } from './processes.js';

export interface DockerServices {
  containers: string[];
  mongoUrl: string;
  redisUrl: string;
}

export function dockerMayBeThere(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

export async function startWithTestcontainers(): Promise<DockerServices | null> {
  // Containers must outlive `services start`; `services stop` removes them.
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  try {
    const tc = await import('testcontainers');
    await Promise.race([
      tc.getContainerRuntimeClient(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 10 s')), 10_000)),
    ]);
    const mongo = await new tc.GenericContainer('mongo:7').withExposedPorts(27017).start();
    const redis = await new tc.GenericContainer('redis:7').withExposedPorts(6379).start();
    log('started mongo:7 and redis:7 with testcontainers');
    return {
      containers: [mongo.getId(), redis.getId()],
      mongoUrl: `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/bookstage`,
      redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    };
  } catch (err) {
    log(`no usable Docker engine (${(err as Error).message}); using local servers`);
    return null;
  }
}

export async function removeContainers(ids: string[]): Promise<void> {
  const tc = await import('testcontainers');
  const client = await tc.getContainerRuntimeClient();
  for (const id of ids) {
    try {
      await client.container.remove(client.container.getById(id), { removeVolumes: true });
    } catch (err) {
      log(`could not remove container ${id}: ${(err as Error).message}`);
    }
  }
}
