// GET /api/v1/cli/books/export (docs/reference/book-reads.md "Export"): the
// worker writes the file to the store in parts; this route streams them in
// order as UTF-8 text, so no process holds the whole file. Errors before the
// first byte answer in the envelope as every route does.
import { Router, type Response } from 'express';
import type { Db } from 'mongodb';
import { AppError } from '../../shared/errors.js';
import { booksExportQuerySchema, type BooksExportQuery } from '../../shared/schemas/books-read.js';
import { compile } from '../../shared/schemas/validator.js';
import { readExportPart } from '../../shared/storage/book-exports.js';
import { locals } from '../context.js';
import { queryObject } from '../query-string.js';
import { runRead, type ReadDeps } from '../read-handler.js';
import { mountRoute } from './mount.js';

const validQuery = compile<BooksExportQuery>(booksExportQuerySchema, '/query');
const EXTENSIONS = { hledger: 'journal', beancount: 'beancount' } as const;

export function booksExportRoutes(db: Db, reads: ReadDeps | undefined): Router {
  const router = Router();
  mountRoute(router, db, 'books.export', async (req, res) => {
    const checked = validQuery(queryObject(req.query, []));
    if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    const query = checked.value;
    const orgId = locals(res).auth!.org_id;
    const stored = await runRead(reads, res, 'books.export', { format: query.format, through: query.through ?? null });
    const first = await readExportPart(db, orgId, stored.export_id, 0);
    if (first === null) throw new AppError('internal', { details: { reason: 'export_part_missing' } });
    const name = `${orgId}${query.through ? `-${query.through}` : ''}.${EXTENSIONS[query.format]}`;
    res.status(200);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', String(stored.bytes));
    res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    // RFC 9530: the file's SHA-256, so a client can check what it saved.
    res.setHeader('Repr-Digest', `sha-256=:${Buffer.from(stored.sha256, 'hex').toString('base64')}:`);
    await write(res, first);
    for (let part = 1; part < stored.parts && !res.destroyed; part += 1) {
      const text = await readExportPart(db, orgId, stored.export_id, part);
      // Past the first byte the status is sent: a part gone missing can only cut the answer short, which
      // Content-Length lets the client see.
      if (text === null) {
        res.destroy();
        return;
      }
      await write(res, text);
    }
    res.end();
  });
  return router;
}

/** Write, waiting for the socket to drain when it asks to (or to close: a client that went away). */
function write(res: Response, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.write(text)) return resolve();
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
