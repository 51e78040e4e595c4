// Query strings carry only strings. Rather than let Ajv coerce (which would
// also quietly turn `true` into 1 or `[5]` into 5 everywhere), a route names
// its numeric parameters and gets a plain object in which those that read as
// a decimal number are numbers; anything else is left as it came, so the
// schema refuses it with a pointer to the parameter.

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function queryObject(query: unknown, numeric: readonly string[]): Record<string, unknown> {
  // No prototype: a parameter named `__proto__` stays a parameter (and is refused as unknown), not a prototype change.
  const out = Object.create(null) as Record<string, unknown>;
  if (query === null || typeof query !== 'object') return out;
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    out[key] = numeric.includes(key) && typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
  }
  return out;
}
