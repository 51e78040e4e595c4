// The generated tables of the docs: the configuration table of
// docs/reference/configuration.md (from CONFIG_VARIABLES in shared/config.ts)
// and the error-code table of docs/reference/error-codes.md (from
// ERROR_TABLE in shared/errors.ts). Each
// sits between two marker comments; everything outside them is hand-written.
// `npm run docs:tables` rewrites the blocks, `npm run docs:tables -- --check`
// (and test/unit/docs-tables.test.ts) fail when one is out of date.
import { CONFIG_VARIABLES, defaultText, expectedValue, type ConfigVariable } from '../../shared/config.js';
import { ERROR_TABLE } from '../../shared/errors.js';
import { ERROR_CODE_DOCS } from './error-code-docs.js';

export type BlockName = 'config' | 'error-codes';

/** Which generated blocks each document must hold (paths from the project root). */
export const DOCUMENT_BLOCKS: Readonly<Record<string, readonly BlockName[]>> = {
  'docs/reference/configuration.md': ['config'],
  'docs/reference/error-codes.md': ['error-codes'],
};

const SOURCES: Record<BlockName, string> = { config: 'shared/config.ts', 'error-codes': 'shared/errors.ts' };

export const beginMarker = (name: BlockName): string =>
  `<!-- generated:${name} from ${SOURCES[name]} by \`npm run docs:tables\`; edit the source, not this table -->`;
export const endMarker = (name: BlockName): string => `<!-- end generated:${name} -->`;

/** A table cell: pipes would split the cell, newlines the row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function renderConfigTable(variables: Readonly<Record<string, ConfigVariable>> = CONFIG_VARIABLES): string {
  const rows = Object.values(variables).map(
    (v) =>
      `| \`${v.env}\` | ${v.usedBy.join(', ')} | ${cell(defaultText(v))} | ${cell(expectedValue(v))} | ${cell(v.doc)} |`,
  );
  return ['| variable | used by | default | accepted values | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

interface ErrorRow {
  status: number;
  retryable: boolean;
}

/**
 * Every code, by HTTP status (the table's own order within one status). A
 * code without a "when" sentence is an error, not an empty cell.
 */
export function renderErrorTable(
  table: Readonly<Record<string, ErrorRow>> = ERROR_TABLE,
  docs: Readonly<Record<string, string>> = ERROR_CODE_DOCS,
): string {
  const codes = Object.keys(table);
  const undocumented = codes.filter((code) => !docs[code]);
  if (undocumented.length > 0) {
    throw new Error(
      `error codes without a description in scripts/docs-tables/error-code-docs.ts: ${undocumented.join(', ')}`,
    );
  }
  const stale = Object.keys(docs).filter((code) => !Object.hasOwn(table, code));
  if (stale.length > 0)
    throw new Error(`descriptions of codes that shared/errors.ts does not have: ${stale.join(', ')}`);
  const rows = codes
    .map((code, order) => ({ code, order, ...table[code]! }))
    .sort((a, b) => a.status - b.status || a.order - b.order)
    .map((r) => `| \`${r.code}\` | ${r.status} | ${r.retryable ? 'yes' : 'no'} | ${cell(docs[r.code]!)} |`);
  return ['| code | HTTP | retryable | when |', '|---|---|---|---|', ...rows].join('\n');
}

export function renderBlock(name: BlockName): string {
  return name === 'config' ? renderConfigTable() : renderErrorTable();
}

/** The table between a block's markers as the document has it; null when the markers are missing. */
export function readBlock(text: string, name: BlockName): string | null {
  const begin = text.indexOf(beginMarker(name));
  const end = text.indexOf(endMarker(name));
  if (begin < 0 || end < begin) return null;
  return text.slice(begin + beginMarker(name).length, end).trim();
}

/**
 * The document with each of its blocks replaced by the freshly rendered
 * table. Throws when a block the document must hold is missing.
 */
export function withFreshBlocks(
  text: string,
  blocks: readonly BlockName[],
  render: (name: BlockName) => string = renderBlock,
): string {
  let out = text;
  for (const name of blocks) {
    const begin = out.indexOf(beginMarker(name));
    const end = out.indexOf(endMarker(name));
    if (begin < 0 || end < begin)
      throw new Error(`no generated block "${name}" (markers ${beginMarker(name)} … ${endMarker(name)})`);
    out = `${out.slice(0, begin)}${beginMarker(name)}\n${render(name)}\n${out.slice(end)}`;
  }
  return out;
}
