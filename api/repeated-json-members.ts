// Repeated member names in a JSON body (docs/reference/http-api.md §5): JSON.parse
// keeps the last, while another reader (a proxy, a log, an agent's own
// check) may keep the first, so one body would mean two requests. The API
// refuses such a body as malformed. One pass over text that JSON.parse has
// already accepted, with an explicit stack (no recursion, so depth is no risk).

type Frame =
  { kind: 'object'; keys: Set<string>; key: string; awaitingKey: boolean } | { kind: 'array'; index: number };

const escapeSegment = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Index just past the string literal that starts at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x5c) i += 2;
    else if (ch === 0x22) return i + 1;
    else i += 1;
  }
  return text.length;
}

/** The JSON pointer of the first repeated member name in `text` (valid JSON), or null. */
export function repeatedMemberPointer(text: string): string | null {
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const top = stack[stack.length - 1];
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (top?.kind === 'object' && top.awaitingKey) {
        const key = JSON.parse(text.slice(i, end)) as string;
        if (top.keys.has(key)) {
          const parents = stack.slice(0, -1).map((f) => (f.kind === 'object' ? escapeSegment(f.key) : String(f.index)));
          return ['', ...parents, escapeSegment(key)].join('/');
        }
        top.keys.add(key);
        top.key = key;
        top.awaitingKey = false;
      }
      i = end;
      continue;
    }
    if (ch === '{') stack.push({ kind: 'object', keys: new Set(), key: '', awaitingKey: true });
    else if (ch === '[') stack.push({ kind: 'array', index: 0 });
    else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',' && top) {
      if (top.kind === 'object') top.awaitingKey = true;
      else top.index += 1;
    }
    i += 1;
  }
  return null;
}
