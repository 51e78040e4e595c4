// No import cycles among the project's modules, type imports included
// (docs/design/architecture.md "Layout and import rules"). eslint's
// import-x/no-cycle skips `import type` by design, so this reads every import,
// export-from and dynamic import of the tree with TypeScript's pre-processor
// and looks for strongly connected components.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sourceFiles } from '../../scripts/docs-tables/links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FOLDERS = ['api', 'worker', 'shared', 'cli', 'web', 'bench', 'scripts', 'test'];

/** The project modules `text` (the file `file`) imports by a relative specifier, `.js` read as the `.ts` source. */
function localImports(file: string, text: string, exists: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
    if (exists(target)) out.push(target);
  }
  return out;
}

/** The cycles of a graph: each strongly connected component of more than one node (or a node importing itself), sorted. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('import cycles (type imports included)', () => {
  it('finds none in the source tree', () => {
    const graph = new Map<string, string[]>();
    for (const path of sourceFiles(root, FOLDERS).filter((p) => p.endsWith('.ts'))) {
      const file = join(root, path);
      graph.set(
        relative(root, file),
        localImports(file, readFileSync(file, 'utf8'), existsSync).map((t) => relative(root, t)),
      );
    }
    expect(graph.size).to.be.above(300);
    expect(cyclesOf(graph).map((c) => c.join(' ↔ '))).to.deep.equal([]);
  });

  it('reads type-only imports, re-exports and dynamic imports as edges', () => {
    const files = new Set(['/r/a.ts', '/r/b.ts', '/r/c.ts', '/r/d.ts']);
    const text = [
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "const d = await import('./d.js');",
      "import { x } from 'mongodb';",
      "import { gone } from './missing.js';",
    ].join('\n');
    expect(localImports('/r/a.ts', text, (p) => files.has(p))).to.deep.equal(['/r/b.ts', '/r/c.ts', '/r/d.ts']);
  });

  it('reports a cycle through a type import, and each cycle once', () => {
    const graph = new Map([
      ['hash', ['plan-types']],
      ['plan', ['hash', 'plan-types']],
      ['plan-types', []],
    ]);
    expect(cyclesOf(graph)).to.deep.equal([]);
    graph.set('hash', ['plan']); // `import type { Plan } from './plan.js'` in the hash
    graph.set('self', ['self']);
    expect(cyclesOf(graph)).to.deep.equal([['hash', 'plan'], ['self']]);
  });
});
