import { createHash } from 'node:crypto';

/**
 * RFC 8785 (JCS) canonical JSON. Byte for byte what the `canonicalize`
 * package (2.1.0) returns, edge cases included (toJSON, undefined and symbols
 * dropped from objects and null in arrays, NaN/Infinity rejected); that
 * package stays the oracle in test/unit/plan-hash.test.ts. why: it builds the
 * text by nested template concatenation, which took seconds on a 100k
 * transaction repair plan; this appends to one flat list.
 */
export function canonicalJson(value: unknown): string {
  const top = resolveToJson(value);
  if (top === null || typeof top !== 'object') {
    const text = primitiveJson(top);
    if (text === undefined) throw new TypeError('value is not JSON-serialisable');
    return text;
  }
  const keys = new Set<string>();
  if (isPlainData(top, keys)) {
    // why: for plain data the package's output is exactly JSON.stringify with
    // every object's keys in code-unit order, and a property list given to
    // JSON.stringify sets that order at every depth, natively (the 100k
    // transaction repair plan).
    return JSON.stringify(top, [...keys].sort());
  }
  const parts: string[] = [];
  writeValue(top, parts);
  return parts.join('');
}

/**
 * Arrays without holes and plain objects, holding strings, finite numbers,
 * booleans, null (and, in objects, undefined or symbols, which both drop) —
 * where JSON.stringify and the package agree. Collects every key into `keys`.
 */
function isPlainData(value: object, keys: Set<string>): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) return false;
      const item: unknown = value[i];
      if (item === null || typeof item === 'string' || typeof item === 'boolean') continue;
      if (typeof item === 'number') {
        if (!Number.isFinite(item)) return false;
      } else if (typeof item !== 'object' || !isPlainData(item, keys)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    // why: a property list reads inherited properties too (and toJSON is the package's business).
    if (key in Object.prototype || key === 'toJSON') return false;
    keys.add(key);
    const item = record[key];
    if (
      item === null ||
      item === undefined ||
      typeof item === 'string' ||
      typeof item === 'boolean' ||
      typeof item === 'symbol'
    )
      continue;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return false;
    } else if (typeof item !== 'object' || !isPlainData(item, keys)) return false;
  }
  return true;
}

/** Hex SHA-256 of the canonical JSON of a plan. */
export function planHash(plan: unknown): string {
  return createHash('sha256').update(canonicalJson(plan), 'utf8').digest('hex');
}

function resolveToJson(value: unknown): unknown {
  let current = value;
  while (
    current !== null &&
    typeof current === 'object' &&
    (current as { toJSON?: unknown }).toJSON instanceof Function
  ) {
    current = (current as { toJSON: () => unknown }).toJSON();
  }
  return current;
}

function primitiveJson(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new Error('NaN is not allowed');
    if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
  }
  return JSON.stringify(value);
}

function writeValue(raw: unknown, parts: string[]): void {
  if (typeof raw === 'string') {
    parts.push(JSON.stringify(raw));
    return;
  }
  const value = resolveToJson(raw);
  if (value === null || typeof value !== 'object') {
    // why: nested, the package interpolates an undefined result as "undefined".
    parts.push(primitiveJson(value) ?? 'undefined');
    return;
  }
  if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i += 1) {
      // why: the package walks arrays with reduce, which skips holes but
      // still puts a comma before every index after the first.
      if (!(i in value)) continue;
      if (i > 0) parts.push(',');
      const item: unknown = value[i];
      writeValue(item === undefined || typeof item === 'symbol' ? null : item, parts);
    }
    parts.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  parts.push('{');
  let first = true;
  for (const key of sortedKeys(record)) {
    const item = record[key];
    if (item === undefined || typeof item === 'symbol') continue;
    parts.push(first ? keyJson(key) : `,${keyJson(key)}`);
    first = false;
    writeValue(item, parts);
  }
  parts.push('}');
}

// why: a plan holds many objects of a few shapes; sorting each one's keys
// again dominated. A shape is recognised by its own key list (same keys, same
// order), which Object.keys returns anyway.
const SHAPES_KEPT = 16;
const shapes: { keys: string[]; sorted: string[] }[] = [];

function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  for (const shape of shapes) {
    if (sameList(shape.keys, keys)) return shape.sorted;
  }
  const sorted = [...keys].sort();
  if (keys.length <= 32) {
    if (shapes.length >= SHAPES_KEPT) shapes.pop();
    shapes.unshift({ keys, sorted });
  }
  return sorted;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

const keyTexts = new Map<string, string>();

function keyJson(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < 4096) keyTexts.set(key, text);
  }
  return text;
}

/**
 * The canonical JSON text of a string (RFC 8785 §3.2.2.2 is JSON.stringify's
 * escaping). why: ids are nearly always plain ASCII, and quoting them
 * directly is cheaper than a call into JSON.stringify per id.
 */
export function canonicalString(text: string): string {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** The canonical JSON text of a number; rejects what canonicalJson rejects. */
export function canonicalNumber(value: number): string {
  if (Number.isNaN(value)) throw new Error('NaN is not allowed');
  if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
  return JSON.stringify(value);
}

const HASH_CHUNK_CHARS = 1 << 16;

/**
 * SHA-256 of canonical JSON written in pieces, for a caller that knows its
 * value's shape and writes the canonical text itself (keys in code-unit
 * order, strings through canonicalString, numbers through canonicalNumber).
 * why: a 100k transaction repair plan is ~30 M characters; hashing it in
 * 64k chunks never builds that string (docs/reference/http-api.md: plan_hash is the
 * SHA-256 of the RFC 8785 form, so the digest is the same).
 */
export class CanonicalHasher {
  private readonly hash = createHash('sha256');
  private pending = '';

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= HASH_CHUNK_CHARS) {
      this.hash.update(this.pending, 'utf8');
      this.pending = '';
    }
  }

  /** Hex digest; the hasher is done after this. */
  digest(): string {
    if (this.pending.length > 0) this.hash.update(this.pending, 'utf8');
    this.pending = '';
    return this.hash.digest('hex');
  }
}

const BYTE_CHUNK = 1 << 16;
const utf8 = new TextEncoder();

/** Canonical JSON text (keys, punctuation) encoded once, for CanonicalByteHasher.bytes. */
export function canonicalBytes(text: string): Uint8Array {
  return utf8.encode(text);
}

/**
 * The decimal digits of a non-negative int32 at `at`; returns how many.
 * why apart from writeDigits: on int32 values the division and remainder
 * are integer operations, where on doubles each remainder was a
 * floating-point modulo (most of a repair plan's amounts are small).
 */
function writeSmallDigits(buffer: Uint8Array, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits += 1;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i -= 1) {
    const quotient = (rest / 10) | 0;
    buffer[i] = 0x30 + rest - quotient * 10;
    rest = quotient;
  }
  return digits;
}

/** The decimal digits of a non-negative safe integer at `at`; returns how many. */
function writeDigits(buffer: Uint8Array, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i -= 1) {
    buffer[i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return digits;
}

/**
 * CanonicalHasher for a caller that writes mostly ASCII ids and integers: the
 * text goes byte by byte into one reused 64 KiB buffer, which is hashed when
 * full. why: building the ~30 M character text of a 100k transaction repair
 * plan as strings (one per action) and encoding them again for the hash cost
 * more than the plan's own steps, and filled the young generation with
 * garbage whose collections copied the plan's live objects. Text that is not
 * ASCII is encoded as UTF-8, exactly as CanonicalHasher does.
 */
export class CanonicalByteHasher {
  private readonly hash = createHash('sha256');
  private readonly buffer = new Uint8Array(BYTE_CHUNK);
  private at = 0;

  /**
   * Canonical JSON text already encoded as UTF-8 (canonicalBytes): the fixed
   * keys and punctuation a caller writes for every record. why: one native
   * copy of a few dozen bytes is cheaper than reading them out of a string
   * one character at a time, and they were about half of a repair plan's bytes.
   */
  bytes(encoded: Uint8Array): void {
    const n = encoded.length;
    if (n > BYTE_CHUNK) {
      this.flush();
      this.hash.update(encoded);
      return;
    }
    if (this.at + n > BYTE_CHUNK) this.flush();
    this.buffer.set(encoded, this.at);
    this.at += n;
  }

  /** Canonical JSON text as it is (punctuation, keys, a canonicalJson result). */
  write(text: string): void {
    const n = text.length;
    if (n <= BYTE_CHUNK) {
      if (this.at + n > BYTE_CHUNK) this.flush();
      const buffer = this.buffer;
      const start = this.at;
      let at = start;
      let i = 0;
      for (; i < n; i += 1) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        buffer[at] = c;
        at += 1;
      }
      if (i === n) {
        this.at = at;
        return;
      }
      this.at = start;
    }
    this.writeEncoded(text);
  }

  /** A string's canonical JSON text (canonicalString), quoted and escaped. */
  string(text: string): void {
    const n = text.length;
    if (n + 2 <= BYTE_CHUNK) {
      if (this.at + n + 2 > BYTE_CHUNK) this.flush();
      const buffer = this.buffer;
      const start = this.at;
      let at = start;
      buffer[at] = 0x22;
      at += 1;
      let i = 0;
      for (; i < n; i += 1) {
        const c = text.charCodeAt(i);
        // why: control characters, the quote and the backslash are escaped,
        // and anything past ASCII needs UTF-8: canonicalString does both.
        if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x80) break;
        buffer[at] = c;
        at += 1;
      }
      if (i === n) {
        buffer[at] = 0x22;
        this.at = at + 1;
        return;
      }
      this.at = start;
    }
    this.writeEncoded(canonicalString(text));
  }

  /** A number's canonical JSON text (canonicalNumber); a safe integer's digits are written directly. */
  number(value: number): void {
    if (!Number.isSafeInteger(value)) {
      this.write(canonicalNumber(value));
      return;
    }
    if (this.at + 17 > BYTE_CHUNK) this.flush();
    const buffer = this.buffer;
    let v = value;
    if (v < 0) {
      buffer[this.at] = 0x2d;
      this.at += 1;
      v = -v;
    }
    this.at += v <= 0x7fffffff ? writeSmallDigits(buffer, this.at, v | 0) : writeDigits(buffer, this.at, v);
  }

  /** Hex digest; the hasher is done after this. */
  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }

  private writeEncoded(text: string): void {
    const bytes = utf8.encode(text);
    if (bytes.length > BYTE_CHUNK - this.at) {
      this.flush();
      if (bytes.length > BYTE_CHUNK) {
        this.hash.update(bytes);
        return;
      }
    }
    this.buffer.set(bytes, this.at);
    this.at += bytes.length;
  }

  private flush(): void {
    if (this.at > 0) this.hash.update(this.buffer.subarray(0, this.at));
    this.at = 0;
  }
}
