// Part of `npm run build`: copies the review page's static files (the HTML
// shell and the stylesheet, web/*.html and web/*.css) and the modules tsc
// compiled into dist/web-build/web/ (web/tsconfig.json) to dist/web/, so
// that dist/ alone serves the page
// (api/routes/review.ts, docs/guide/review-page.md). It also writes
// dist/web/route-paths.js, each operation's path from the route table's paths
// (dist/shared/contract/route-paths.js, compiled before this runs): the page builds
// its URLs from it (web/route-paths.d.ts) and writes none itself. Plain JS: no
// build needed.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'web');
const to = join(root, 'dist', 'web');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) {
  if (/\.(html|css)$/.test(name)) copyFileSync(join(from, name), join(to, name));
}
const built = join(root, 'dist', 'web-build', 'web');
for (const name of readdirSync(built)) {
  if (/\.js$/.test(name)) copyFileSync(join(built, name), join(to, name));
}
// The build's own output: the paths of shared/contract/route-paths.ts, typed there.
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
const contract = /** @type {{ ROUTE_PATHS: Record<string, string> }} */ (
  await import(pathToFileURL(join(root, 'dist', 'shared', 'contract', 'route-paths.js')).href)
);
writeFileSync(
  join(to, 'route-paths.js'),
  `// Written by scripts/copy-web-assets.mjs from shared/contract/route-paths.ts.\nexport const ROUTE_PATHS = ${JSON.stringify(contract.ROUTE_PATHS, null, 2)};\n`,
);
