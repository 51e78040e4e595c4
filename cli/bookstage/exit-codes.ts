// The CLI's exit codes (docs/guide/cli.md): one table, used for every
// command and printed in `bookstage --help`. Scripts and agents branch on them.

export const EXIT = {
  ok: 0,
  other: 1,
  badInput: 2,
  conflict: 3,
  notFound: 4,
  auth: 5,
  pending: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  success, including a noop plan
  1  anything else (a server error such as 500 job_failed, the API unreachable after retries)
  2  bad input: a usage error, or the API answered 400, 413 or 415
  3  blocked or conflict: 409, 422, or a blocked plan
  4  not found (404)
  5  auth: 401 or 403, or no token configured
  6  pending: the job still runs (202 without --follow, or --timeout ran out)`;

/** The exit code of an HTTP answer and its envelope. */
export function exitCodeFor(status: number, data: unknown): ExitCode {
  if (status === 202) return EXIT.pending;
  if (status >= 200 && status < 300) {
    const outcome = (data as { outcome?: unknown } | null)?.outcome;
    return outcome === 'blocked' ? EXIT.conflict : EXIT.ok;
  }
  if (status === 400 || status === 413 || status === 415) return EXIT.badInput;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409 || status === 422) return EXIT.conflict;
  return EXIT.other;
}

/** A failure before or around the HTTP call, with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
