import type { AppError } from '../errors.js';

/** What a domain check returns: a value, or the first failing rule as an AppError. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: AppError): Result<T> => ({ ok: false, error });
