// Named text fields cut into parts of at most a given number of characters,
// and joined back (docs/design/staged-lifecycle.md "How an operation is
// stored"). why: MongoDB refuses a document past 16 MiB of BSON, and the
// Node driver refuses to encode one on FerretDB too; a 15,000-transaction
// repair's plan, preconditions and context are some 19 MB of JSON, which no
// single document can hold. Pure: no I/O.

/** One part: a slice of some of the fields, in field order. */
export type TextPart<K extends string> = Partial<Record<K, string>>;

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * The fields, in order, cut into parts of at most `maxChars` characters all
 * told: each part is filled before the next starts, and a field may run on
 * into the next part. A cut never falls inside a surrogate pair (each half
 * alone is not a string BSON can encode as UTF-8). An empty field is kept,
 * in the part where it falls.
 */
export function splitFields<K extends string>(
  fields: ReadonlyArray<readonly [K, string]>,
  maxChars: number,
): Array<TextPart<K>> {
  if (!Number.isInteger(maxChars) || maxChars < 2)
    throw new RangeError(`a part holds at least 2 characters, not ${String(maxChars)}`);
  const parts: Array<TextPart<K>> = [{}];
  let room = maxChars;
  for (const [key, text] of fields) {
    let at = 0;
    do {
      if (room === 0 || (room === 1 && text.length - at > 1 && isHighSurrogate(text.charCodeAt(at)))) {
        parts.push({});
        room = maxChars;
      }
      let end = Math.min(text.length, at + room);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const part = parts[parts.length - 1]!;
      part[key] = text.slice(at, end);
      room -= end - at;
      at = end;
    } while (at < text.length);
  }
  return parts;
}

/** Each field joined back from the parts, in part order; a field no part holds is absent. */
export function joinFields<K extends string>(parts: ReadonlyArray<TextPart<K>>, keys: readonly K[]): TextPart<K> {
  const out: TextPart<K> = {};
  for (const key of keys) {
    const slices = parts.flatMap((part) => (part[key] === undefined ? [] : [part[key]]));
    if (slices.length > 0) out[key] = slices.join('');
  }
  return out;
}
