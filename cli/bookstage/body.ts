// A request body from flags named after its fields, or whole from `--body
// FILE` (`-` reads stdin) so that agents can pipe JSON. Flags given beside
// --body set their fields on top of it.
import { readFileSync } from 'node:fs';
import { CliError, EXIT } from './exit-codes.js';

export function readBodyOption(source: string | undefined): Record<string, unknown> {
  if (source === undefined) return {};
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --body ${source}: ${(err as Error).message}`, EXIT.badInput);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--body ${source} is not valid JSON: ${(err as Error).message}`, EXIT.badInput);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`--body ${source} must be a JSON object`, EXIT.badInput);
  return parsed as Record<string, unknown>;
}

/** Set `value` at a dotted path (`statement.end_date`) unless it is undefined. */
export function setField(body: Record<string, unknown>, path: string, value: unknown): void {
  if (value === undefined) return;
  const keys = path.split('.');
  let target = body;
  for (const key of keys.slice(0, -1)) {
    const next = target[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
  target[keys[keys.length - 1]!] = value;
}

/** Option parsers: a bad value is a usage error (exit 2) before anything is sent. */
export function integerOption(name: string) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
      throw new CliError(
        `${name} must be an integer (minor units, e.g. 56000 for 560.00 EUR), got "${value}"`,
        EXIT.badInput,
      );
    return Number(value);
  };
}

export function listOption(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
