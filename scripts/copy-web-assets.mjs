// Part of `npm run build`: copies the review page's static files (the HTML
// shell and the stylesheet, web/*.html and web/*.css) and the modules tsc
// compiled into dist/web-build/web/ (web/tsconfig.json) to dist/web/, so
// that dist/ alone serves the page
// (api/routes/review.ts, docs/guide/review-page.md). Plain JS: no build needed.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
