// Every local link of README.md, docs/**/*.md and bench/README.md leads to a
// file that exists, and a #fragment to a heading of it; README.md stays short
// (docs/README.md is the index of the rest).
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  brokenDocReference,
  brokenLinks,
  citingFiles,
  codePaths,
  docReferences,
  headingIds,
  headingSlug,
  linkedSectionReferences,
  linkTargets,
  markdownDocs,
} from '../../scripts/docs-tables/links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
/** This file: its examples name missing docs on purpose. */
const self = 'test/unit/docs-links.test.ts';

describe("the docs' local links resolve", () => {
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
      '```',
      '[fenced](nope.md)',
      '```',
    ].join('\n');
    const broken = brokenLinks(
      '/d/c.md',
      text,
      (p) => p in files,
      (p) => files[p]!,
    );
    expect(broken).to.deep.equal([
      'missing.md: no file /d/missing.md',
      'a.md#no-such-heading: no heading #no-such-heading in /d/a.md',
    ]);
  });

  it("gives headings GitHub's ids", () => {
    expect(headingSlug('Review and apply staged operations — `/api/v1/cli/staged-operations`')).to.equal(
      'review-and-apply-staged-operations--apiv1clistaged-operations',
    );
    expect([...headingIds('# A\n## A\n```\n# not a heading\n```\n### Exit codes\n')]).to.deep.equal([
      'a',
      'a-1',
      'exit-codes',
    ]);
  });

  it('every docs/ path, bench/README.md and README the code, the tests, the deployment files (and the docs\' plain text) name exists, with the section (§N or "Heading") it names', () => {
    const broken: string[] = [];
    for (const file of [...citingFiles(root).filter((f) => f !== self), ...docs]) {
      for (const ref of docReferences(read(file))) {
        const why = brokenDocReference(root, ref);
        if (why) broken.push(`${file}: ${why}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('every section a document names after a link to another document (`[x](y.md) "Heading"`) exists', () => {
    const broken = docs.flatMap((path) =>
      linkedSectionReferences(path, read(path))
        .map((ref) => brokenDocReference(root, ref))
        .filter((why): why is string => why !== null)
        .map((why) => `${path}: ${why}`),
    );
    expect(broken).to.deep.equal([]);
    const text =
      'See [indexes](../indexes.md) "Reads by\nid alone" and [b](b.md) "Gone".\n```\n[c](c.md) "In code"\n```\n';
    expect(linkedSectionReferences('docs/design/a.md', text)).to.deep.equal([
      { path: 'docs/indexes.md', section: 'Reads by id alone' },
      { path: 'docs/design/b.md', section: 'Gone' },
    ]);
  });

  it('no document links to itself by its own file name (a section says it once; #fragments link within)', () => {
    const self = docs.flatMap((path) =>
      linkTargets(read(path))
        .filter((t) => t.split('#')[0] !== '' && normalize(join(dirname(path), t.split('#')[0]!)) === normalize(path))
        .map((t) => `${path}: ${t}`),
    );
    expect(self).to.deep.equal([]);
  });

  it('every project path the docs name in inline code exists', () => {
    const missing = docs.flatMap((path) =>
      codePaths(read(path))
        .filter((p) => !existsSync(join(root, p)))
        .map((p) => `${path}: ${p}`),
    );
    expect(missing).to.deep.equal([]);
    expect(codePaths('`shared/errors.ts`, `api/routes/`, `shared/domain/*-plan.ts`, `test/a …`')).to.deep.equal([
      'shared/errors.ts',
      'api/routes',
    ]);
  });

  it('checks the tests and the deployment files too, and reports a bad reference in their # comments', () => {
    expect(citingFiles(root)).to.include.members([
      self,
      'test/http/dry-run.test.ts',
      'Dockerfile',
      'docker-compose.yml',
      '.env.example',
    ]);
    const compose =
      '# Load books with the admin command (docs/operating.md "Books and tokens in the\n# composed stack"); secrets: docs/reference/webhooks.md.\n';
    const refs = docReferences(compose);
    expect(refs).to.deep.equal([
      { path: 'docs/operating.md', section: 'Books and tokens in the composed stack' },
      { path: 'docs/reference/webhooks.md', section: null },
    ]);
    expect(refs.map((ref) => brokenDocReference(root, ref))).to.deep.equal(['docs/operating.md: no such file', null]);
    expect(
      brokenDocReference(root, { path: 'docs/operating/deploy.md', section: 'Books and tokens in the composed stack' }),
    ).to.equal('docs/operating/deploy.md "Books and tokens in the composed stack": no such heading');
  });

  it("reads a reference's path and section, over a comment's line break", () => {
    const source = [
      '// see docs/reference/http-api.md §6.3 and docs/design/staged-lifecycle.md "Crash',
      '// safety"; README "Two commands", bench/README.md and docs/openapi.json; bench/README.md "Latest run".',
      "const doc = 'docs/operating/metrics.md';",
    ].join('\n');
    expect(docReferences(source)).to.deep.equal([
      { path: 'docs/reference/http-api.md', section: '§6.3' },
      { path: 'docs/design/staged-lifecycle.md', section: 'Crash safety' },
      { path: 'README.md', section: 'Two commands' },
      { path: 'bench/README.md', section: null },
      { path: 'docs/openapi.json', section: null },
      { path: 'bench/README.md', section: 'Latest run' },
      { path: 'docs/operating/metrics.md', section: null },
    ]);
  });

  it('reports a missing doc, a missing § and a heading no heading starts with', () => {
    const files: Record<string, string> = {
      '/r/docs/a.md': '# A\n## §6 Staging\n### §6.3 One pending plan\n## §3 Authentication, tenancy\n',
    };
    const check = (path: string, section: string | null): string | null =>
      brokenDocReference(
        '/r',
        { path, section },
        (p) => p in files,
        (p) => files[p]!,
      );
    expect(check('docs/a.md', '§6.3')).to.equal(null);
    expect(check('docs/a.md', '§6')).to.equal(null);
    expect(check('docs/a.md', 'Authentication')).to.equal(null);
    expect(check('docs/a.md', null)).to.equal(null);
    expect(check('docs/b.md', null)).to.equal('docs/b.md: no such file');
    expect(check('docs/a.md', '§6.4')).to.equal('docs/a.md §6.4: no such heading');
    expect(check('docs/a.md', 'Apply')).to.equal('docs/a.md "Apply": no such heading');
  });
});
