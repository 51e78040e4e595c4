// `admin books import FILE --format hledger|beancount` (docs/guide/ledger-exchange.md
// "Import"): the tools themselves parse the file (`hledger print -x -O json`,
// beancount's loader through scripts/beancount/read_json.py), their answers
// are read one transaction at a time, the journal is mapped to a books file
// (shared/domain/ledger-import/to-books.ts) and loaded through the same
// importer as a books JSON file, so the same checks hold. Refused whole, with
// the line, before anything is written.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Db } from 'mongodb';
import { addBeancountRecord, type BeancountRecord } from '../domain/ledger-import/beancount-json.js';
import { hledgerTransaction, type HledgerTransaction } from '../domain/ledger-import/hledger-json.js';
import type { LedgerRefusal, ReadJournal } from '../domain/ledger-import/read-journal.js';
import { JournalScan, type LedgerFormat } from '../domain/ledger-import/scan.js';
import { journalToBooks, type ImportOptions, type SourceLines } from '../domain/ledger-import/to-books.js';
import { hledgerErrorRefusal } from '../domain/ledger-import/tool-errors.js';
import { importBooks, type ImportCounts } from './import.js';

/** The largest file an import reads (docs/guide/ledger-exchange.md "Refusals"). */
export const LEDGER_FILE_MAX_BYTES = 50 * 1024 * 1024;

// This file runs as dist/shared/books/ledger-import.js; the checkout is three levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Where the tools are: `BOOKSTAGE_HLEDGER` (default `hledger` on PATH) and `BOOKSTAGE_BEANCOUNT_PYTHON` (default the venv of scripts/python-tools.ts). */
export function ledgerTools(env: NodeJS.ProcessEnv = process.env): { hledger: string; python: string } {
  return {
    hledger: env.BOOKSTAGE_HLEDGER || 'hledger',
    python: env.BOOKSTAGE_BEANCOUNT_PYTHON || join(root, '.cache', 'beancount-venv', 'bin', 'python'),
  };
}

/**
 * The environment the tools run in: the caller's, in a UTF-8 locale. hledger
 * decodes its file by the locale, and under `LANG=C` (or none) refuses any
 * UTF-8 text ("hGetContents: invalid byte sequence"); a books file is UTF-8.
 */
export function ledgerToolEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, LC_ALL: 'C.UTF-8' };
}

export type LedgerImportResult =
  { ok: true; org_id: string; counts: ImportCounts } | { ok: false; refusals: LedgerRefusal[] };

/** Read, map and load the file; nothing is written unless all of it is accepted. */
export async function importLedgerFile(
  db: Db,
  path: string,
  format: LedgerFormat,
  options: ImportOptions,
): Promise<LedgerImportResult> {
  const read = await readLedgerFile(path, format);
  if (!read.ok) return read;
  const mapped = journalToBooks(read.journal, options);
  if (!mapped.ok) return mapped;
  const result = await importBooks(db, mapped.file);
  if (result.ok) return result;
  return {
    ok: false,
    refusals: result.errors.map((e) => ({
      line: lineOfPointer(e.pointer, mapped.lines),
      code: 'ledger_books_invalid',
      message: `${e.pointer}: ${e.message}`,
    })),
  };
}

function lineOfPointer(pointer: string, lines: SourceLines): number {
  const m = /^\/([a-z_]+)\/(\d+)/.exec(pointer);
  return m ? (lines[m[1]!]?.[Number(m[2])] ?? 0) : 0;
}

type Read = { ok: true; journal: ReadJournal } | { ok: false; refusals: LedgerRefusal[] };

export async function readLedgerFile(path: string, format: LedgerFormat): Promise<Read> {
  const size = (await stat(path)).size;
  if (size > LEDGER_FILE_MAX_BYTES)
    return {
      ok: false,
      refusals: [
        {
          line: 0,
          code: 'ledger_file_too_large',
          message: `the file has ${size} bytes; an import reads at most ${LEDGER_FILE_MAX_BYTES}`,
        },
      ],
    };
  const scan = new JournalScan(format);
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity }))
    scan.push(line);
  // An include is never followed: the tools would read another file.
  if (scan.refusals.some((r) => r.code === 'ledger_include')) return { ok: false, refusals: scan.refusals };

  const journal: ReadJournal = { accounts: format === 'hledger' ? scan.accounts : [], transactions: [], balances: [] };
  const refusals = [...scan.refusals];
  const tools = ledgerTools();
  if (format === 'hledger') {
    const pricedIn = (from: number, to: number) => scan.priceLines.some((l) => l >= from && l <= to);
    const run = await runTool(tools.hledger, ['-f', path, 'print', '-x', '-O', 'json'], hledgerObjects, (t) => {
      const read = hledgerTransaction(t as HledgerTransaction, pricedIn);
      if (Array.isArray(read)) refusals.push(...read);
      else journal.transactions.push(read);
    });
    if (run.code !== 0) refusals.push(hledgerErrorRefusal(run.stderr));
  } else {
    const script = join(root, 'scripts', 'beancount', 'read_json.py');
    const run = await runTool(tools.python, [script, path], jsonLines, (r) =>
      addBeancountRecord(journal, refusals, r as BeancountRecord),
    );
    if (run.code !== 0) refusals.push({ line: 0, code: 'ledger_syntax', message: run.stderr.trim().slice(-2000) });
  }
  if (refusals.length > 0) return { ok: false, refusals: dedupe(refusals) };
  return { ok: true, journal };
}

function dedupe(refusals: LedgerRefusal[]): LedgerRefusal[] {
  const seen = new Set<string>();
  return refusals
    .filter((r) => {
      const key = `${r.line} ${r.code} ${r.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => a.line - b.line);
}

/** Objects of a JSON array as hledger pretty-prints it: each top-level element between `  {` and `  }`. */
async function* hledgerObjects(lines: AsyncIterable<string>): AsyncGenerator<unknown> {
  let chunk: string[] | null = null;
  for await (const line of lines) {
    if (line === '  {') chunk = [line];
    else if (chunk) {
      chunk.push(line);
      if (line === '  }' || line === '  },') {
        chunk[chunk.length - 1] = '  }';
        yield JSON.parse(chunk.join('\n'));
        chunk = null;
      }
    }
  }
}

async function* jsonLines(lines: AsyncIterable<string>): AsyncGenerator<unknown> {
  for await (const line of lines) if (line.trim()) yield JSON.parse(line);
}

/** Run the tool, hand each object of its output to `each` as it comes; its exit code and stderr. */
async function runTool(
  command: string,
  args: string[],
  objects: (lines: AsyncIterable<string>) => AsyncGenerator<unknown>,
  each: (value: unknown) => void,
): Promise<{ code: number; stderr: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: ledgerToolEnv() });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 100_000) stderr += d;
  });
  // Settled by 'error' too (a tool not installed), so that it is never a rejection nobody awaits yet.
  const exited = new Promise<number | Error>((resolve) => {
    child.on('error', resolve);
    child.on('close', (code) => resolve(code ?? 1));
  });
  for await (const value of objects(createInterface({ input: child.stdout, crlfDelay: Infinity }))) each(value);
  const code = await exited;
  if (code instanceof Error)
    throw new Error(
      `cannot run ${command} (${code.message}): install hledger and beancount with \`npm run tools:ledger\`, or name them with BOOKSTAGE_HLEDGER / BOOKSTAGE_BEANCOUNT_PYTHON (docs/guide/ledger-exchange.md "Import")`,
    );
  return { code, stderr };
}
