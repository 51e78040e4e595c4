// MongoDB's E11000 (FerretDB answers the same code), a unique violation: the
// one test for "a unique `_id` or index refused this write", which is how every race here is
// settled. An unordered bulk insert reports it per document.
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number }[] | { code?: number } };
  if (e.code === 11000) return true;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : [];
  return writeErrors.length > 0 && writeErrors.every((w) => w.code === 11000);
}
