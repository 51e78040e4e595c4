// The corpus of real banks' statement files (test/fixtures/bank-statements/SOURCES.md): every file
// reads through the real entry point (format sniffed) into the transactions its manifest lists,
// which were checked by hand against the file (count, sum, first and last entry).
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { parseStatementFile } from '../../shared/kinds/statement-import/parse.js';
import { corpus, corpusBytes, corpusRoot } from '../helpers/statement-corpus.js';

/** The fields of `actual` that `expected` names. */
function picked(actual: object, expected: object): Record<string, unknown> {
  return Object.fromEntries(Object.keys(expected).map((k) => [k, (actual as Record<string, unknown>)[k]]));
}

describe('statement import: the corpus of real banks’ files', () => {
  it('holds at least 40 files, each listed once in the manifest with its source and licence', () => {
    const onDisk = ['camt053', 'csv', 'mt940', 'ofx'].flatMap((dir) =>
      readdirSync(new URL(`${dir}/`, corpusRoot)).map((name) => `${dir}/${name}`),
    );
    expect(corpus.map((f) => f.file).sort()).to.deep.equal(onDisk.sort());
    expect(corpus.length).to.be.at.least(40);
    for (const f of corpus) {
      expect(f.source.repository, f.file).to.match(/^[\w.-]+\/[\w.-]+$/);
      expect(f.source.commit, f.file).to.match(/^[0-9a-f]{40}$/);
      expect(f.source.licence, f.file).to.be.oneOf(['MIT', 'BSD-3-Clause', 'Apache-2.0', 'GPL-3.0', 'AGPL-3.0']);
    }
  });

  for (const f of corpus) {
    it(`${f.file} (${f.source.repository}): ${f.statements} statement(s), ${f.entries} entries summing to ${f.sum_minor}`, () => {
      const parsed = parseStatementFile(corpusBytes(f.file), {
        format: f.csv === undefined ? 'auto' : 'csv',
        encoding: null,
        csv: f.csv ?? null,
        account_currency: f.account_currency ?? 'EUR',
      });
      const entries = parsed.statements.flatMap((s) => s.entries);
      expect(parsed.format).to.equal(f.format);
      expect(parsed.statements).to.have.length(f.statements);
      const accounts = parsed.statements.flatMap((s) =>
        s.account === null ? [] : [s.account.iban ?? s.account.account_number],
      );
      expect([...new Set(accounts)]).to.deep.equal(f.accounts);
      expect(entries).to.have.length(f.entries);
      expect(entries.reduce((sum, e) => sum + e.amount_minor, 0)).to.equal(f.sum_minor);
      expect([...new Set(entries.map((e) => e.currency))].sort()).to.deep.equal(f.currencies);
      if (f.first === null || f.last === null) return;
      expect(picked(entries[0]!, f.first)).to.deep.equal(f.first);
      expect(picked(entries[entries.length - 1]!, f.last)).to.deep.equal(f.last);
    });
  }
});
