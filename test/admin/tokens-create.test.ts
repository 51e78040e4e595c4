// `npm run admin -- tokens create` (cli/admin.ts) grants the scopes it is
// given and no other (docs/guide/importing-books.md, `tokens create`):
// checked by what the token may do on the real API, not only by what the
// command prints.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';

const run = promisify(execFile);
const adminJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'admin.js');

interface Created {
  token: string;
  token_id: string;
  org_id: string;
  actor: string;
  scopes: string[];
  agent: boolean;
}

/** Runs `admin tokens create --json` with the given extra arguments against the test store. */
async function createToken(orgId: string, args: string[], actor = 'alice'): Promise<Created> {
  const { config } = await stack();
  const { stdout } = await run(
    process.execPath,
    [adminJs, 'tokens', 'create', '--org', orgId, '--actor', actor, ...args, '--json'],
    {
      env: { ...process.env, MONGO_URL: config.mongoUrl },
    },
  );
  return JSON.parse(stdout) as Created;
}

/** GET a path with the token: status and the envelope's data. */
async function get(
  token: string,
  path: string,
): Promise<{ status: number; data: { scopes?: string[]; agent?: boolean } | undefined }> {
  const { baseUrl } = await stack();
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data?: { scopes?: string[]; agent?: boolean } };
  return { status: res.status, data: body.data };
}

async function orgWithAnAccount(): Promise<string> {
  const books = new Books();
  books.account();
  await (await stack()).load(books.file);
  return books.orgId;
}

describe('admin tokens create', () => {
  it('grants only the given scopes: a token made to read the inbox is refused the book reads', async () => {
    const org = await orgWithAnAccount();
    const created = await createToken(org, ['--scopes', 'inbox:read']);
    expect(created.scopes).to.deep.equal(['inbox:read']);
    expect((await get(created.token, '/api/v1/cli/whoami')).data!.scopes).to.deep.equal(['inbox:read']);
    expect((await get(created.token, '/api/v1/cli/bank-accounts')).status).to.equal(403);
  });

  it('reads the books when books:read is given', async () => {
    const org = await orgWithAnAccount();
    const created = await createToken(org, ['--scopes', 'staged:read,books:read']);
    expect(created.scopes).to.deep.equal(['staged:read', 'books:read']);
    expect((await get(created.token, '/api/v1/cli/bank-accounts')).status).to.equal(200);
    expect((await get(created.token, '/api/v1/cli/staged-operations')).status).to.equal(200);
  });

  it('still takes --no-books-read, which old scripts pass, and grants what it is given', async () => {
    const org = await orgWithAnAccount();
    const created = await createToken(org, ['--scopes', 'staged:read', '--no-books-read']);
    expect(created.scopes).to.deep.equal(['staged:read']);
    expect((await get(created.token, '/api/v1/cli/bank-accounts')).status).to.equal(403);
  });

  it('names a scope given twice once', async () => {
    const org = await orgWithAnAccount();
    const created = await createToken(org, ['--scopes', 'books:read,staged:read,books:read']);
    expect(created.scopes).to.deep.equal(['books:read', 'staged:read']);
  });

  it("marks an agent's token with --agent, and whoami says which actors count as agents", async () => {
    const org = await orgWithAnAccount();
    const agent = await createToken(org, ['--scopes', 'staged:approve', '--agent'], 'recon-bot');
    const person = await createToken(org, ['--scopes', 'staged:approve'], 'bob');
    const named = await createToken(org, ['--scopes', 'staged:approve'], 'agent:helper');
    expect([agent.agent, person.agent, named.agent]).to.deep.equal([true, false, false]);
    const seen = await Promise.all(
      [agent, person, named].map(async (t) => (await get(t.token, '/api/v1/cli/whoami')).data!.agent),
    );
    expect(seen).to.deep.equal([true, false, true]);
  });
});
