// Every local link of README.md, docs/**/*.md and bench/README.md leads to a
// file that exists, and a #fragment to a heading of it; README.md stays short
// (docs/README.md is the index of the rest).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokenLinks, headingIds, headingSlug, markdownDocs } from '../../scripts/docs-tables/links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

describe('the docs\' local links resolve', () => {
  const docs = markdownDocs(root);

  it('finds README.md, bench/README.md and the docs index among the documents', () => {
    expect(docs).to.include.members(['README.md', 'bench/README.md', 'docs/README.md']);
  });

  for (const path of docs) {
    it(`${path}: every local link names an existing file and heading`, () => {
      expect(brokenLinks(join(root, path), read(path))).to.deep.equal([]);
    });
  }

  it('README.md is at most 300 lines', () => {
    expect(read('README.md').split('\n').length).to.be.at.most(300);
  });

  it('reports a link to a missing file, and a fragment without its heading', () => {
    const files: Record<string, string> = { '/d/a.md': '# Title\n## Quick start\n', '/d/b.md': '' };
    const text = [
      '[ok](b.md) [ok](a.md#quick-start) [ok](#local) [web](https://example.com/x.md)',
      '# Local',
      '[gone](missing.md) [bad anchor](a.md#no-such-heading)',
      '`[in code](nope.md)`',
      '```', '[fenced](nope.md)', '```',
    ].join('\n');
    const broken = brokenLinks('/d/c.md', text, (p) => p in files, (p) => files[p]!);
    expect(broken).to.deep.equal([
      'missing.md: no file /d/missing.md',
      'a.md#no-such-heading: no heading #no-such-heading in /d/a.md',
    ]);
  });

  it('gives headings GitHub\'s ids', () => {
    expect(headingSlug('Review and apply staged operations — `/api/v1/cli/staged-operations`'))
      .to.equal('review-and-apply-staged-operations--apiv1clistaged-operations');
    expect([...headingIds('# A\n## A\n```\n# not a heading\n```\n### Exit codes\n')]).to.deep.equal(['a', 'a-1', 'exit-codes']);
  });
});
