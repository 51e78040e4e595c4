// `npm run bookstage -- …`: the CLI from a checkout. Installs the locked
// dependencies and compiles only when something changed (scripts/build.mjs
// --if-stale), then runs the built CLI in this same process, so a call costs
// what `node dist/cli/bookstage/main.js` costs plus a file-time check.
import { join, dirname } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import './ensure-deps.mjs';
import { build, buildIsFresh } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!buildIsFresh()) {
  process.stderr.write('bookstage: compiling (sources changed since the last build)…\n');
  try {
    build();
  } catch {
    process.exit(1);
  }
}
await import(pathToFileURL(join(root, 'dist', 'cli', 'bookstage', 'main.js')).href);
