// A FerretDB 1.24 row (`_jsonb`) back into the document the MongoDB driver
// returns for it (docs/indexes.md "Pages from PostgreSQL's own index").
//
// why: the book pages are read straight from PostgreSQL on the embedded store
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

interface Schema { $k?: string[]; p?: Record<string, Elem> }
interface Elem { t: string; $s?: Schema; i?: Elem[] }

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
    Object.defineProperty(out, key, { value: value(raw[key], schema.p![key]!), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The document stored in `_jsonb` (already parsed from JSON), keys in their stored order. */
export function decodeFerretDocument(jsonb: Record<string, unknown>): Record<string, unknown> {
  return object(jsonb, jsonb.$s ?? {});
}
