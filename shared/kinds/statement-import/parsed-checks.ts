// What every parsed statement file must hold, whatever its format
// (docs/guide/statement-import.md "Unreadable files"): text by the free-text
// rule of JSON bodies, and real calendar dates. Checked on the parsed values,
// so a character a format encodes (a CAMT `&#27;`, a UTF-16 lone surrogate)
// is judged as it would be stored.
import { isCalendarDate } from '../../domain/dates.js';
import { unsafeCharacter } from '../../domain/safe-text.js';
import { StatementParseError, type ParsedStatementFile } from './model.js';

/** The earliest day a statement may name: anything before is a broken date, not a booking. */
export const EARLIEST_STATEMENT_DATE = '1900-01-01';

/** A real calendar day `YYYY-MM-DD` from EARLIEST_STATEMENT_DATE on. */
export function isStatementDate(value: string): boolean {
  return isCalendarDate(value) && value >= EARLIEST_STATEMENT_DATE;
}

const TEXT_REASON = 'text must not contain control characters, bidirectional overrides or lone surrogates';

/** The reason a text is refused: the free-text rule, naming the first character it refuses. */
export function unsafeTextReason(text: string): string | null {
  const char = unsafeCharacter(text);
  return char === null ? null : `${TEXT_REASON} (${char}${char === 'U+0000' ? ', a NUL' : ''})`;
}

function checkStrings(value: unknown, location: string, format: ParsedStatementFile['format']): void {
  if (typeof value === 'string') {
    const reason = unsafeTextReason(value);
    if (reason !== null) throw new StatementParseError(format, location, reason);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkStrings(v, `${location}[${i + 1}]`, format));
    return;
  }
  for (const [key, v] of Object.entries(value)) checkStrings(v, `${location}/${key}`, format);
}

function checkDate(value: string | null, location: string, format: ParsedStatementFile['format']): void {
  if (value !== null && !isStatementDate(value))
    throw new StatementParseError(format, location, `not a calendar date: "${value}"`);
}

/** Throws StatementParseError at the first text or date of `file` that may not be stored (location `statement S/entries[E]/field`). */
export function checkParsedFile(file: ParsedStatementFile): void {
  file.statements.forEach((s, si) => {
    const at = `statement ${si + 1}`;
    checkDate(s.start_date, `${at}/start_date`, file.format);
    checkDate(s.end_date, `${at}/end_date`, file.format);
    s.entries.forEach((e, ei) => {
      // A pending CAMT entry may have no date at all: it is left out of the plan.
      if (!(e.pending && e.booking_date === ''))
        checkDate(e.booking_date, `${at}/entries[${ei + 1}]/booking_date`, file.format);
      checkDate(e.value_date, `${at}/entries[${ei + 1}]/value_date`, file.format);
    });
    checkStrings(s, at, file.format);
  });
}
