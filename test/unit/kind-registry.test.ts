// The kinds' registries (docs/design/architecture.md "Kinds"): a member added to the
// StagedKind union without its module must fail tsc, naming what is missing.
// Each check type-checks the files that map over StagedKind with TypeScript's
// own compiler, reading the real tree except shared/domain/staged-kind.ts,
// which gets a planted sixth member; the same files unpatched check clean.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// dist/test/unit → the project root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const KIND_FILE = join(root, 'shared', 'domain', 'staged-kind.ts');
// A name no real kind takes.
const PLANTED = 'planted_kind';

/** staged-kind.ts with one more member in STAGED_KINDS. */
function plantedKindSource(): string {
  const source = readFileSync(KIND_FILE, 'utf8');
  const patched = source.replace("'statement_import',\n", `'statement_import',\n  '${PLANTED}',\n`);
  if (patched === source)
    throw new Error('could not plant a kind in shared/domain/staged-kind.ts: its list changed shape');
  return patched;
}

/** The options of a tsconfig (path from the root). */
function optionsOf(tsconfig: string): ts.CompilerOptions {
  const path = join(root, tsconfig);
  const read = ts.readConfigFile(path, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(path));
  return { ...parsed.options, noEmit: true, incremental: false, tsBuildInfoFile: undefined };
}

/** tsc's errors in `files` (paths from the root), with staged-kind.ts replaced by `kindSource` when given. */
function errorsIn(tsconfig: string, files: string[], kindSource: string | null): Map<string, string[]> {
  const options = optionsOf(tsconfig);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (kindSource !== null && name === KIND_FILE ? kindSource : readFile(name));
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) =>
    kindSource !== null && name === KIND_FILE
      ? ts.createSourceFile(name, kindSource, languageVersion, true)
      : getSourceFile(name, languageVersion, onError, shouldCreate);
  const paths = files.map((f) => join(root, f));
  const program = ts.createProgram(paths, options, host);
  const found = new Map<string, string[]>();
  for (const [i, path] of paths.entries()) {
    const source = program.getSourceFile(path);
    if (!source) throw new Error(`${files[i]} is not in the program`);
    found.set(
      files[i]!,
      ts.getPreEmitDiagnostics(program, source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    );
  }
  return found;
}

const SERVER_FILES = [
  'shared/kinds/registry.ts',
  'worker/kinds.ts',
  'shared/kinds/journals.ts',
  'cli/bookstage/output/plans.ts',
];
const PAGE_FILES = ['web/kinds.ts'];

describe('the kinds registries (a sixth kind without its module fails tsc)', function () {
  // A TypeScript program over the files and everything they import.
  this.timeout(300_000);

  it('check clean as they are', () => {
    for (const [file, errors] of [
      ...errorsIn('tsconfig.json', SERVER_FILES, null),
      ...errorsIn('web/tsconfig.json', PAGE_FILES, null),
    ]) {
      expect(errors, file).to.deep.equal([]);
    }
  });

  it('fail on each map over StagedKind, naming the planted kind', () => {
    const found = new Map([
      ...errorsIn('tsconfig.json', SERVER_FILES, plantedKindSource()),
      ...errorsIn('web/tsconfig.json', PAGE_FILES, plantedKindSource()),
    ]);
    for (const file of [...SERVER_FILES, ...PAGE_FILES]) {
      const errors = found.get(file) ?? [];
      expect(errors, file).to.not.deep.equal([]);
      for (const error of errors) expect(error, file).to.match(new RegExp(`Property '${PLANTED}' is missing in type`));
    }
  });
});
