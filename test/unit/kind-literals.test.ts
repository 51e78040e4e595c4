// Where a staged kind may be named (docs/design/architecture.md "Kinds"): outside
// its own folders (shared/kinds/<kind>/, worker/kinds/<kind>/), a kind's literal
// appears only in the union, the registries typed over StagedKind and the
// page's view map, so adding or renaming a kind is its folders plus the entries
// tsc asks for. The check parses every source file of api, worker, shared, cli
// and web (tests, docs and the bench aside) with TypeScript's parser and looks
// at code only, never comments:
// - a string or template literal that holds a kind's name as a word, except in
//   an operation name (`<kind>.stage`: the route table's key of the kind's
//   staging call, how the CLI and the page ask it for a path); a one-word kind
//   (`revert`) only as the whole string or a key's prefix;
// - a property named after a kind (an object's key, a type's member).
// Reading a typed registry (`KINDS.ledger_reversal`) is asking the registry, and
// tsc checks it: that is allowed.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { STAGED_KINDS, type StagedKind } from '../../shared/domain/staged-kind.js';

// dist/test/unit → the project root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SOURCE_DIRS = ['api', 'worker', 'shared', 'cli', 'web'];

/** The files that list every kind: the union and the maps typed over StagedKind. */
const REGISTRIES = new Set([
  'shared/domain/staged-kind.ts',
  'shared/kinds/registry.ts',
  'shared/kinds/journals.ts',
  'worker/kinds.ts',
  'cli/bookstage/output/plans.ts',
]);
/** The page's view map: the kinds are its keys, nothing more. */
const PAGE_VIEW_MAP = 'web/kinds.ts';

const folderOf = (kind: StagedKind): string => kind.replace(/_/g, '-');

interface Finding {
  file: string;
  line: number;
  kind: StagedKind;
  as: 'string' | 'key';
}

/**
 * The kinds a literal's text names as a word, operation names (`<kind>.<verb>`) aside. A kind named by one
 * English word (`revert`) is also that word in messages, paths and CLI verbs: it counts only as the whole
 * string or as a key's prefix (`revert:…`).
 */
function kindsInText(text: string): StagedKind[] {
  return STAGED_KINDS.filter((kind) =>
    kind.includes('_')
      ? new RegExp(`(?<![\\w.])${kind}(?!\\w|\\.\\w)`).test(text)
      : text === kind || text.startsWith(`${kind}:`),
  );
}

const isPropertyName = (node: ts.Identifier): boolean => {
  const parent = node.parent;
  return (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isShorthandPropertyAssignment(parent)) &&
    parent.name === node
  );
};

/** A CLI command's verb (`.command('revert')`): a word of the CLI, not a kind's name. */
const isCliVerb = (node: ts.Node): boolean =>
  ts.isCallExpression(node.parent) &&
  node.parent.arguments[0] === node &&
  ts.isPropertyAccessExpression(node.parent.expression) &&
  node.parent.expression.name.text === 'command';

/** Every literal and property name of `source` (a file's text) that names a kind. */
export function kindLiterals(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Finding[] = [];
  const at = (node: ts.Node): number => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && !isCliVerb(node)) {
      for (const kind of kindsInText(node.text)) found.push({ file, line: at(node), kind, as: 'string' });
    } else if (ts.isIdentifier(node) && isPropertyName(node)) {
      const kind = STAGED_KINDS.find((k) => k === node.text);
      if (kind) found.push({ file, line: at(node), kind, as: 'key' });
    }
    // A quoted key ('bank_reconcile': …) is a string literal: the first branch finds it.
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Whether `finding` sits where its kind may be named. */
function allowed(f: Finding): boolean {
  if (REGISTRIES.has(f.file)) return true;
  if (f.file === PAGE_VIEW_MAP) return f.as === 'key';
  const own = folderOf(f.kind);
  return f.file.startsWith(`shared/kinds/${own}/`) || f.file.startsWith(`worker/kinds/${own}/`);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

describe('kind literals (docs/design/architecture.md "Kinds")', function () {
  // Parses every source file of five folders.
  this.timeout(60_000);

  it('finds a literal, a key and a template, and leaves comments and operation names alone', () => {
    const planted = [
      "// bank_reconcile in a comment, and 'ledger_reversal' in one",
      "const a = kind === 'bank_reconcile';",
      "const b = { ledger_link_repair: 1, 'statement_import': 2 };",
      'const c = `inbox_duplicates_resolve:${id}`;',
      'type D = { ledger_reversal: string };',
      "const e = pathOf('ledger_reversal.stage');",
      'const f = KINDS.bank_reconcile.cli.label;',
    ].join('\n');
    expect(kindLiterals('planted.ts', planted).map((f) => `${f.line} ${f.kind} ${f.as}`)).to.deep.equal([
      '2 bank_reconcile string',
      '3 ledger_link_repair key',
      '3 statement_import string',
      '4 inbox_duplicates_resolve string',
      '5 ledger_reversal key',
    ]);
  });

  it('keeps a kind folder to its own kind, and the page map to keys', () => {
    const other = kindLiterals('shared/kinds/ledger-reversal/plan.ts', "const k = 'bank_reconcile';");
    expect(other.filter((f) => !allowed(f))).to.have.length(1);
    const own = kindLiterals('worker/kinds/ledger-reversal/stage.ts', "const k = 'ledger_reversal';");
    expect(own.filter((f) => !allowed(f))).to.deep.equal([]);
    const page = kindLiterals(PAGE_VIEW_MAP, "const m = { ledger_reversal: 1 }; const k = 'ledger_reversal';");
    expect(page.filter((f) => !allowed(f)).map((f) => f.as)).to.deep.equal(['string']);
  });

  it('names no kind outside the union, the registries, the page map and the kind folders', () => {
    const outside = SOURCE_DIRS.flatMap(sourceFiles)
      .flatMap((file) => kindLiterals(file, readFileSync(join(root, file), 'utf8')))
      .filter((f) => !allowed(f))
      .map((f) => `${f.file}:${f.line} ${f.kind} (${f.as})`);
    expect(outside).to.deep.equal([]);
  });
});
