// One Ajv instance for the process; schemas are compiled once, at import.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FieldError } from '../errors.js';
import { SAFE_TEXT_PATTERN } from './common.js';

// ajv-formats is CommonJS; under NodeNext its default import is the plugin
// function itself, while its typings describe an ES module whose default is
// that function. The two types share nothing, hence the one `as unknown as`
// the project keeps (the plugin's own signature, restated).
const addFormats = formatsPlugin as unknown as (ajv: Ajv, formats: string[]) => Ajv;

export const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv, ['date', 'date-time']);

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };
export type Validator<T> = (data: unknown) => Validation<T>;

/** Compile a schema once; the validator reports every problem with a JSON pointer. */
export function compile<T>(schema: object, pointerPrefix = ''): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (data) =>
    validate(data)
      ? { ok: true, value: data as T }
      : { ok: false, errors: toFieldErrors(validate.errors ?? [], pointerPrefix) };
}

export function toFieldErrors(errors: ErrorObject[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // anyOf branches repeat the same problem; report the anyOf once.
    if (errors.some((o) => o.keyword === 'anyOf' && o.instancePath === e.instancePath && o !== e)) continue;
    const fieldError = describe(e, prefix);
    const key = `${fieldError.pointer} ${fieldError.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(fieldError);
    }
  }
  return out;
}

function describe(e: ErrorObject, prefix: string): FieldError {
  const at = prefix + e.instancePath;
  switch (e.keyword) {
    case 'required':
      return { pointer: `${at}/${escape(String(e.params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return { pointer: `${at}/${escape(String(e.params.additionalProperty))}`, message: 'is not a known field' };
    case 'format':
      return {
        pointer: at,
        message:
          e.params.format === 'date'
            ? 'must be a real calendar date YYYY-MM-DD'
            : `must be an ISO 8601 ${String(e.params.format)}`,
      };
    case 'uniqueItems': {
      // Ajv names the pair in either order; point at the repeat, name the first.
      const [first, repeat] = [Number(e.params.i), Number(e.params.j)].sort((a, b) => a - b);
      return { pointer: `${at}/${String(repeat)}`, message: `duplicates item ${String(first)}` };
    }
    case 'anyOf':
      return { pointer: at, message: 'must be null or a valid value' };
    case 'pattern':
      return {
        pointer: at,
        message:
          e.params.pattern === SAFE_TEXT_PATTERN
            ? 'must not contain control characters, bidirectional overrides or lone surrogates'
            : (e.message ?? 'is invalid'),
      };
    default:
      return { pointer: at, message: e.message ?? 'is invalid' };
  }
}

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
