// MongoDB's E11000 (FerretDB answers the same code), a unique violation. This module is the
// one place that knows the code: the one test for "a unique `_id` or index refused this write", which is how every race here is
// settled. An unordered bulk insert reports it per document.
const DUPLICATE_KEY = 11000;

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number }[] | { code?: number } };
  if (e.code === DUPLICATE_KEY) return true;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [];
  return writeErrors.length > 0 && writeErrors.every((w) => w.code === DUPLICATE_KEY);
}

/** The index an ordered bulk insert stopped at on a unique violation (MongoBulkWriteError.writeErrors[0]); null for any other error. */
export function refusedDuplicateIndex(err: unknown): number | null {
  const e = err as { writeErrors?: Array<{ code?: number; index?: number }> | { code?: number; index?: number } };
  const first = Array.isArray(e.writeErrors) ? e.writeErrors[0] : e.writeErrors;
  return first?.code === DUPLICATE_KEY && typeof first.index === 'number' ? first.index : null;
}
