// `npm run build`, and the freshness check in front of every other npm
// script (docs/guide/quick-start.md). `node scripts/build.mjs` compiles the
// server, CLI and tests (tsc), the review page (its own tsconfig) and copies
// the page's static files; `--if-stale` does that only when a source file
// changed since the last build, so `npm start`, `npm run bookstage` and
// `npm run admin` cost no compile when nothing changed. Plain JS: it runs
// before TypeScript output exists.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
/** What the two tsconfigs and the asset copy read; a folder's own mtime moves when a file in it is added, removed or renamed. */
const SOURCES = ['api', 'worker', 'shared', 'cli', 'scripts', 'test', 'bench', 'web'];
const SOURCE_FILE = /\.(ts|mts|html|css|json)$/;
const CONFIG_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];

function newestSource() {
  let newest = 0;
  /** @param {string} dir */
  const walk = (dir) => {
    const s = statSync(dir);
    newest = Math.max(newest, s.mtimeMs);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of CONFIG_FILES) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

/** True when dist/ was built from the sources as they are now. */
export function buildIsFresh() {
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();
}

/** Where tsc writes each tree's output: dist/<dir> for the server tree, dist/web for the page. */
const COMPILED = ['api', 'worker', 'shared', 'cli', 'scripts', 'test', 'bench'];

/**
 * Delete compiled files whose TypeScript source is gone (a file moved or
 * removed): tsc never deletes, and a stale test file left in dist/ would
 * still run and import modules that no longer exist.
 */
export function pruneOrphans(base = root) {
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(join(base, 'dist', dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const source = /^(.*)\.(js|js\.map|d\.ts)$/.exec(path)?.[1];
        if (source !== undefined && !existsSync(join(base, `${source}.ts`)) && !existsSync(join(base, `${source}.mjs`)))
          rmSync(join(base, 'dist', path));
      }
    }
  };
  for (const dir of COMPILED) if (existsSync(join(base, 'dist', dir))) walk(dir);
}

export function build() {
  // The stamp takes the time the build started: a source saved during the build makes the next check build again.
  const started = new Date();
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // stdout of the build goes to stderr: some commands' stdout is parsed (`npm run -s services -- start`).
  const stdio = ['ignore', process.stderr, process.stderr];
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, stdio });
  execFileSync(process.execPath, [tsc, '-p', join(root, 'web', 'tsconfig.json')], { cwd: root, stdio });
  execFileSync(process.execPath, [join(root, 'scripts', 'copy-web-assets.mjs')], { cwd: root, stdio });
  pruneOrphans();
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || !buildIsFresh()) {
    try {
      build();
    } catch {
      // tsc has printed its errors.
      process.exit(1);
    }
  }
}
