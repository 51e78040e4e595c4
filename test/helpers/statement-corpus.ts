// The corpus of real banks' statement files (test/fixtures/bank-statements/SOURCES.md) and its
// manifest, corpus.json: per file its source and licence and the transactions it holds, checked by
// hand against the file.
import { readFileSync } from 'node:fs';
import type { CsvMapping } from '../../shared/kinds/statement-import/csv.js';

export interface CorpusEntry {
  booking_date: string;
  amount_minor: number;
  currency: string;
  /** Absent where the file's reference is no bank reference (an MT940 :61: without `//`). */
  bank_reference?: string | null;
  counterparty_name: string | null;
}

export interface CorpusFile {
  file: string;
  source: { repository: string; path: string; commit: string; licence: string };
  format: 'camt053' | 'ofx' | 'mt940' | 'csv';
  /** A CSV's column mapping and the account currency it is read with (no other format has them). */
  csv?: CsvMapping;
  account_currency?: string;
  statements: number;
  entries: number;
  sum_minor: number;
  /** The accounts the statements name, as the file gives them (none for CSV). */
  accounts: string[];
  currencies: string[];
  first: CorpusEntry | null;
  last: CorpusEntry | null;
}

export const corpusRoot = new URL('../../../test/fixtures/bank-statements/', import.meta.url);
export const corpus = JSON.parse(readFileSync(new URL('corpus.json', corpusRoot), 'utf8')) as CorpusFile[];
export const corpusBytes = (file: string): Buffer => readFileSync(new URL(file, corpusRoot));
