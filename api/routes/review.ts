// GET /review: the review page (docs/guide/review-page.md). Static files only: the
// HTML shell, the stylesheet and the browser modules the build put in
// dist/web/ (web/tsconfig.json, scripts/copy-web-assets.mjs). The page talks
// to the same /api/v1/cli/... endpoints as every other client; there is no
// back end of its own. A plain middleware, not a Router route: the page is
// not part of the JSON API contract (shared/contract/routes.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

/** This file runs as dist/api/routes/review.js; the page's files are in dist/web/. */
const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const ASSET = /^\/review\/assets\/([a-z0-9-]+\.(js|css))$/;
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/**
 * Only this origin, for everything: scripts and styles from files (no inline
 * code), calls to the API on the same origin, no frames, forms or plugins.
 */
export const REVIEW_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  type: string;
  body: Buffer;
}

/** The built files, read once; an empty map when the page was not built (then /review says so). */
function loadFiles(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(WEB_DIR);
  } catch {
    return files;
  }
  for (const name of names) {
    const ext = name.split('.').pop() ?? '';
    if (TYPES[ext]) files.set(name, { type: TYPES[ext], body: readFileSync(join(WEB_DIR, name)) });
  }
  return files;
}

export function reviewPage(): RequestHandler {
  const files = loadFiles();
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const asset = ASSET.exec(req.path);
    const name = req.path === '/review' || req.path === '/review/' ? 'review.html' : asset?.[1];
    if (name === undefined) {
      next();
      return;
    }
    const file = files.get(name);
    if (!file) {
      // An unknown asset is an unknown route; a missing page means the build did not run.
      if (name !== 'review.html') {
        next();
        return;
      }
      res.status(503).type('text/plain').send('The review page is not built: run `npm run build`.\n');
      return;
    }
    res.setHeader('Content-Security-Policy', REVIEW_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.type(file.type).send(file.body);
  };
}
