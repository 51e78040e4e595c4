// Local links of the Markdown docs (README.md, docs/**/*.md, bench/README.md):
// each must name an existing file and, with a #fragment, an existing heading
// of that file (GitHub's heading ids). Checked by test/unit/docs-links.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The heading ids of a Markdown text (repeats get -1, -2, … as on GitHub); fenced code is skipped. */
export function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = headingSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    ids.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return ids;
}

/** Link targets of a Markdown text, fenced code and inline code left out. */
export function linkTargets(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const bare = line.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
    for (const m of bare.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) out.push(m[1]!);
  }
  return out;
}

/**
 * The broken local links of one document, as "target: why". External links
 * (a scheme such as https: or mailto:) are not checked.
 * `read` and `exists` default to the file system (tests pass their own).
 */
export function brokenLinks(
  file: string,
  text: string,
  exists: (path: string) => boolean = existsSync,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
    if (pathPart !== '' && !exists(path)) {
      broken.push(`${target}: no file ${path}`);
      continue;
    }
    if (fragment === undefined || fragment === '' || !path.endsWith('.md')) continue;
    const ids = headingIds(path === file ? text : read(path));
    if (!ids.has(decodeURIComponent(fragment).toLowerCase()))
      broken.push(`${target}: no heading #${fragment} in ${path}`);
  }
  return broken;
}

/** README.md, bench/README.md and every docs/**\/*.md, relative to root. */
export function markdownDocs(root: string): string[] {
  const out = ['README.md', 'bench/README.md'].filter((p) => existsSync(join(root, p)));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.md')) out.push(relative(root, full));
    }
  };
  walk(join(root, 'docs'));
  return out;
}

/** Heading texts of a Markdown text (backticks dropped), fenced code skipped. */
export function headingTexts(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push(m[1]!.replace(/`/g, ''));
  }
  return out;
}

/** A reference of the code to the docs: a path under docs/ (or the README), and the section it names if any. */
export interface DocReference {
  path: string;
  section: string | null;
}

/**
 * The docs a source text names: every `docs/…` path, `bench/README.md` and `README`, each with
 * the section written right after it (`§6.3` or `"A heading"`, a comment's
 * line break allowed in between). Comment markers at line starts (`//`, `*`,
 * and the `#` of YAML, .env and Dockerfile comments) are dropped first, so a
 * reference may run over two comment lines.
 */
export function docReferences(source: string): DocReference[] {
  const flat = source.replace(/\s*\n\s*(?:\/\/+|\*+(?!\/)|#+(?=\s))?\s*/g, ' ');
  const out: DocReference[] = [];
  const section = /^,?\s*(?:§(\d+(?:\.\d+)*)|"([^"]+)")/;
  for (const m of flat.matchAll(/\b(docs\/[A-Za-z0-9_./-]*[A-Za-z0-9_/-]|bench\/README\.md|README(?:\.md)?\b)/g)) {
    const raw = m[1]!;
    const path = raw.startsWith('README') ? 'README.md' : raw;
    // `docs/README.md` (and `bench/README.md`, matched whole above) name their own files, not the project's README.
    if (raw.startsWith('README') && m.index > 0 && /[/\w]/.test(flat[m.index - 1]!)) continue;
    const s = section.exec(flat.slice(m.index + raw.length));
    out.push({ path, section: s ? (s[1] ? `§${s[1]}` : s[2]!) : null });
  }
  return out;
}

/**
 * The sections a Markdown document names after a link to another document,
 * `[text](../indexes.md) "Reads by id alone"` (a line break allowed between),
 * as references from the project's root; `file` is the document's path from
 * the root. Fenced code is left out.
 */
export function linkedSectionReferences(file: string, text: string): DocReference[] {
  const prose = text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1/gm, '').replace(/\s*\n\s*/g, ' ');
  const out: DocReference[] = [];
  for (const m of prose.matchAll(/\]\(\s*([^)#\s:]+\.md)\s*\)\s*"([^"]+)"/g)) {
    out.push({ path: normalize(join(dirname(file), m[1]!)), section: m[2]! });
  }
  return out;
}

/**
 * What a reference names that is not there: a missing file, or a section no
 * heading of the file starts with (`§6.3` matches "§6.3 One pending plan…";
 * "Authentication" matches "§3 Authentication, tenancy and scopes").
 */
export function brokenDocReference(
  root: string,
  ref: DocReference,
  exists: (path: string) => boolean = existsSync,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): string | null {
  const full = join(root, ref.path);
  if (!exists(full)) return `${ref.path}: no such file`;
  if (ref.section === null || !ref.path.endsWith('.md')) return null;
  const wanted = ref.section.toLowerCase();
  const headings = headingTexts(read(full)).map((h) => h.toLowerCase());
  const found = wanted.startsWith('§')
    ? headings.some((h) => h === wanted || h.startsWith(`${wanted} `))
    : headings.some((h) => h.startsWith(wanted) || h.replace(/^§[\d.]+\s+/, '').startsWith(wanted));
  return found
    ? null
    : `${ref.path} ${ref.section.startsWith('§') ? ref.section : `"${ref.section}"`}: no such heading`;
}

/** The source files (.ts, declarations included, .mjs, .js) under the given folders of root, node_modules and dist left out. */
export function sourceFiles(root: string, folders: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === 'dist') continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(ts|mjs|js)$/.test(name)) out.push(relative(root, full));
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder));
  return out;
}

/**
 * The files besides the docs whose text may cite them: the source folders
 * (tests included) and the deployment files at the root (Dockerfile,
 * docker-compose.yml, .env.example), relative to root.
 */
export function citingFiles(root: string): string[] {
  const deployment = ['Dockerfile', 'docker-compose.yml', '.env.example'].filter((p) => existsSync(join(root, p)));
  return [...sourceFiles(root, ['api', 'worker', 'shared', 'cli', 'scripts', 'web', 'bench', 'test']), ...deployment];
}

/** Project paths a Markdown text names in inline code (`api/…`, `shared/…`, `test/…`, …); globs and elisions left out. */
export function codePaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`((?:api|worker|shared|cli|scripts|web|bench|test|examples)\/[A-Za-z0-9_./-]*)`/g)) {
    out.push(m[1]!.replace(/\/$/, ''));
  }
  return out;
}
