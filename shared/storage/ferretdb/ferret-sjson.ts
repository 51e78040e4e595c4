// A FerretDB 1.24 row (`_jsonb`) back into the document the MongoDB driver
// returns for it (docs/indexes.md "Pages from PostgreSQL's own index"), and a
// document into the row FerretDB would store for it (encodeFerretDocument:
// docs/indexes.md "Writes in SQL").
//
// why: the book pages are read straight from PostgreSQL by the FerretDB adapter
// and must answer exactly what FerretDB would. FerretDB 1.24 stores a document
// as JSON plus its type schema under `$s`: `{"$k": [keys in order], "p":
// {key: {"t": type, "$s": nested schema, "i": array item schemas}}}` (its
// internal/handler/sjson). jsonb forgets key order, hence `$k`. The driver,
// with its defaults, gives a JS number for int32, int64 within ±2^53 and
// double, a Date for a date, and the same strings, booleans and nulls. Any
// other type (ObjectId, binary, regex, timestamp, a long beyond 2^53) is not
// decoded here: the document is then reported inexact and read through
// FerretDB instead.

/** A value or document this decoder cannot give exactly as the driver would. */
export class InexactDocument extends Error {
  constructor(readonly type: string) {
    super(`FerretDB value of type ${type} is not decoded here`);
  }
}

interface Schema {
  $k?: string[];
  p?: Record<string, Elem>;
}
interface Elem {
  t: string;
  $s?: Schema;
  i?: Elem[];
}

function value(raw: unknown, elem: Elem): unknown {
  switch (elem.t) {
    case 'string':
    case 'bool':
      return raw;
    case 'null':
      return null;
    case 'int':
    case 'double':
      // jsonb keeps the number's decimal digits; JSON.parse gives back the same double FerretDB reads.
      return raw;
    case 'long':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) throw new InexactDocument('long beyond 2^53');
      return raw;
    case 'date':
      return new Date(raw as number);
    case 'object':
      return object(raw as Record<string, unknown>, elem.$s ?? {});
    case 'array':
      return (raw as unknown[]).map((item, i) => value(item, elem.i![i]!));
    default:
      throw new InexactDocument(elem.t);
  }
}

function object(raw: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of schema.$k ?? []) {
    // An own property even for `__proto__`, as the driver's BSON reader makes it.
    setOwn(out, key, value(raw[key], schema.p![key]!));
  }
  return out;
}

/**
 * `out[key] = v` as an own data property, also for `__proto__`, which a
 * plain store would take as the prototype. why not defineProperty for
 * every key: it left each document in dictionary mode, and decoding a
 * 50-row book page took 355 µs against 75-96 µs with plain stores; the
 * decoder was the API's largest function of its own in a book-reads load
 * (docs/design/performance.md "Round trip").
 */
function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  else out[key] = v;
}

/** The document stored in `_jsonb` (already parsed from JSON), keys in their stored order. */
export function decodeFerretDocument(jsonb: Record<string, unknown>): Record<string, unknown> {
  return object(jsonb, jsonb.$s ?? {});
}

/**
 * The `_jsonb` text FerretDB 1.24 stores for `doc` when the MongoDB driver
 * (default options) inserts it: each value typed as the driver's BSON
 * serializer types it (a safe integer within int32 is `int`, any other number
 * `double`; a Date `date`, in milliseconds; `undefined` a null), the schema
 * under `$s` as FerretDB's sjson.Marshal writes it, values as FerretDB's
 * insert leaves them (a -0 becomes 0). Throws InexactDocument for anything
 * FerretDB would refuse or type otherwise (a key starting with `$` or
 * holding a dot, an array in an array, a non-finite number, a lone
 * surrogate or NUL in a string, a bigint, any class but Date): such a
 * document is inserted through FerretDB instead.
 * test/store/store-port/sql-inserts.test.ts holds it equal to FerretDB's own rows.
 */
export function encodeFerretDocument(document: object): string {
  const doc = document as Record<string, unknown>;
  const keys = Object.keys(doc);
  if (keys[0] !== '_id') throw new InexactDocument('document without _id first');
  const row: Record<string, unknown> = { $s: schemaOf(doc, keys) };
  for (const key of keys) setOwn(row, key, plain(doc[key]));
  const text = JSON.stringify(row);
  // why: jsonb refuses \u0000 and unpaired surrogate escapes, which JSON.stringify writes for them.
  if (UNSTORABLE_ESCAPE.test(text)) throw new InexactDocument('string jsonb cannot hold');
  return text;
}

const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

function schemaOf(doc: Record<string, unknown>, keys: readonly string[]): Schema {
  if (keys.length === 0) return {};
  const p: Record<string, Elem> = {};
  for (const key of keys) {
    if (key.startsWith('$') || key.includes('.')) throw new InexactDocument(`key ${JSON.stringify(key)}`);
    // Own data property, as `plain` reads it (a `__proto__` key would be the prototype here).
    setOwn(p, key, elemOf(doc[key], false));
  }
  return { p, $k: [...keys] };
}

function elemOf(v: unknown, inArray: boolean): Elem {
  switch (typeof v) {
    case 'string':
      return { t: 'string' };
    case 'boolean':
      return { t: 'bool' };
    case 'undefined':
      return { t: 'null' };
    case 'number':
      if (!Number.isFinite(v)) throw new InexactDocument('non-finite number');
      return Number.isSafeInteger(v) && !Object.is(v, -0) && v >= INT32_MIN && v <= INT32_MAX
        ? { t: 'int' }
        : { t: 'double' };
    case 'object': {
      if (v === null) return { t: 'null' };
      if (Array.isArray(v)) {
        if (inArray) throw new InexactDocument('array in an array');
        const items: Elem[] = [];
        for (let i = 0; i < v.length; i += 1) items.push(elemOf(v[i], true));
        return { t: 'array', i: items };
      }
      if (v instanceof Date) {
        if (Number.isNaN(v.getTime())) throw new InexactDocument('invalid date');
        return { t: 'date' };
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) throw new InexactDocument('class instance');
      const record = v as Record<string, unknown>;
      return { t: 'object', $s: schemaOf(record, Object.keys(record)) };
    }
    case 'bigint':
    case 'function':
    case 'symbol':
      // why: the driver writes a bigint as a long and leaves functions and symbols out; none is in a document here.
      throw new InexactDocument(typeof v);
  }
}

/** The value as JSON stores it: a Date as its milliseconds, undefined as null, -0 as 0. */
function plain(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Date) return v.getTime();
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v)) setOwn(out, key, plain(value));
  return out;
}
