// The one path of every API command: resolve the profile, send (with
// retries), follow a 202 when asked, print the answer (readable, or the raw
// envelope with --json) and return the exit code.
import { pathOf } from '../../shared/contract/route-paths.js';
import { resolveProfile, type Profile } from './config.js';
import { CliError, EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
import type { SuccessEnvelope } from '../../shared/contract/envelope.js';
import { dataOf, errorOf, NetworkError, send, type Answer, type Request, type RetryPolicy } from './http-client.js';
import type { Io } from './io.js';
import { fieldOf, isList } from './output/answer-data.js';

export interface CommonOptions {
  json?: boolean;
  profile?: string;
  retries?: number;
}
export interface StagingOptions extends CommonOptions {
  body?: string;
  idempotencyKey?: string;
  wait?: number;
  follow?: boolean;
  timeout?: number;
  dryRun?: boolean;
  /** approve, reject, apply: --minimal (Prefer: return=minimal). */
  minimal?: boolean;
}
export interface PagingOptions extends CommonOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

const DEFAULT_RETRIES = 3;
const BASE_DELAY_MS = 500;
const DEFAULT_FOLLOW_SECONDS = 300;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function retryPolicy(opts: CommonOptions, io: Io, key: string | undefined): RetryPolicy {
  return {
    retries: opts.retries ?? DEFAULT_RETRIES,
    baseDelayMs: BASE_DELAY_MS,
    onRetry: (attempt, reason, delay) => {
      io.err(
        `bookstage: ${reason}; retry ${attempt}/${opts.retries ?? DEFAULT_RETRIES} in ${(delay / 1000).toFixed(1)} s${key ? ` (same Idempotency-Key ${key})` : ''}\n`,
      );
    },
  };
}

async function sendOrFail(profile: Profile, request: Request, policy: RetryPolicy): Promise<Answer> {
  try {
    return await send(profile, request, policy);
  } catch (err) {
    if (err instanceof NetworkError) throw new CliError(`the API did not answer: ${err.message}`, EXIT.other);
    throw err;
  }
}

async function print(io: Io, answer: Answer, json: boolean | undefined): Promise<void> {
  if (json) io.out(answer.text.endsWith('\n') ? answer.text : `${answer.text}\n`);
  else {
    // Loaded when an answer is printed: the renderers read the kinds' registry, which `--help` never needs.
    const { renderAnswer } = await import('./output/answer.js');
    io.out(renderAnswer(io.style, answer));
  }
}

/** A GET (a job, a staged operation): send, follow a 202 if asked, print, exit code. */
export async function runRequest(
  request: Request,
  opts: CommonOptions & Pick<StagingOptions, 'follow' | 'timeout'>,
  io: Io,
): Promise<ExitCode> {
  const profile = resolveProfile(opts.profile, io.env);
  let answer = await sendOrFail(profile, request, retryPolicy(opts, io, request.idempotencyKey));
  if (answer.status === 202 && opts.follow) answer = await follow(profile, answer, opts, io);
  await print(io, answer, opts.json);
  return exitCodeFor(answer.status, dataOf(answer));
}

/** A GET whose success is a file, not an envelope (the books export): the body as it came, else the error as any answer. */
export async function runDownload(request: Request, opts: CommonOptions, io: Io): Promise<ExitCode> {
  const profile = resolveProfile(opts.profile, io.env);
  const answer = await sendOrFail(profile, request, retryPolicy(opts, io, undefined));
  if (answer.status === 200 && answer.headers.get('content-type')?.startsWith('text/plain')) {
    io.out(answer.text);
    return EXIT.ok;
  }
  await print(io, answer, opts.json);
  return exitCodeFor(answer.status, dataOf(answer));
}

/** A call that may answer 202: one Idempotency-Key for the invocation, Prefer: wait, and --follow. */
export async function runStaging(
  request: Omit<Request, 'idempotencyKey' | 'waitSeconds'>,
  opts: StagingOptions,
  io: Io,
): Promise<ExitCode> {
  // A dry run stores nothing and needs no key (docs/reference/http-api.md §6.6): safe to repeat as it is.
  if (opts.dryRun) return runDryRun(request, opts, io);
  const profile = resolveProfile(opts.profile, io.env);
  const key = opts.idempotencyKey ?? `bookstage-cli-${crypto.randomUUID()}`;
  const full: Request = {
    ...request,
    idempotencyKey: key,
    waitSeconds: opts.wait,
    ...(opts.minimal ? { minimal: true } : {}),
  };
  let answer = await sendOrFail(profile, full, retryPolicy(opts, io, key));
  if (answer.status === 202 && opts.follow) answer = await follow(profile, answer, opts, io);
  await print(io, answer, opts.json);
  if (!opts.json) {
    if (answer.status === 202)
      io.err(`Or retry the same command with --idempotency-key ${key}: it never stages twice.\n`);
    // Final for that job, but the same key retried later is a new attempt (docs/reference/http-api.md §6.2).
    if (errorOf(answer)?.code === 'job_failed')
      io.err(
        `The job failed for good. Retrying the same command with --idempotency-key ${key} starts a new attempt.\n`,
      );
  }
  return exitCodeFor(answer.status, dataOf(answer));
}

async function runDryRun(
  request: Omit<Request, 'idempotencyKey' | 'waitSeconds'>,
  opts: StagingOptions,
  io: Io,
): Promise<ExitCode> {
  const profile = resolveProfile(opts.profile, io.env);
  const path = `${request.path}${request.path.includes('?') ? '&' : '?'}dry_run=true`;
  let answer = await sendOrFail(
    profile,
    { ...request, path, waitSeconds: opts.wait },
    retryPolicy(opts, io, undefined),
  );
  if (answer.status === 202 && opts.follow) answer = await follow(profile, answer, opts, io);
  await print(io, answer, opts.json);
  return exitCodeFor(answer.status, dataOf(answer));
}

/** Poll a pending job (its Location) until it is no longer 202, or --timeout runs out. */
export async function follow(profile: Profile, pending: Answer, opts: StagingOptions, io: Io): Promise<Answer> {
  const id = fieldOf(dataOf(pending), 'job_id');
  const jobId = typeof id === 'string' ? id : undefined;
  const location = pending.headers.get('location') ?? (jobId ? pathOf('jobs.show', { job_id: jobId }) : null);
  if (!location) return pending;
  const deadline = Date.now() + (opts.timeout ?? DEFAULT_FOLLOW_SECONDS) * 1000;
  let answer = pending;
  let frame = 0;
  while (answer.status === 202 && Date.now() < deadline) {
    const after = Number(answer.headers.get('retry-after'));
    const delay = Math.min(
      Number.isFinite(after) && after > 0 ? after * 1000 : 1000,
      Math.max(0, deadline - Date.now()),
    );
    if (io.interactive) io.err(`\r${SPINNER[frame++ % SPINNER.length]} waiting for ${jobId ?? location}…`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    answer = await sendOrFail(
      profile,
      { method: 'GET', path: location, ...(opts.minimal ? { minimal: true } : {}) },
      retryPolicy(opts, io, undefined),
    );
  }
  if (io.interactive) io.err('\r\u001b[K');
  return answer;
}

/** A list: one page, or every page with --all (readable: one summary; --json: one envelope per line). */
export async function runPaged(
  pathFor: (cursor: string | undefined) => string,
  listKey: 'groups' | 'items',
  opts: PagingOptions,
  io: Io,
): Promise<ExitCode> {
  const profile = resolveProfile(opts.profile, io.env);
  const collected: unknown[] = [];
  let cursor = opts.cursor;
  let last: Answer;
  for (;;) {
    last = await sendOrFail(profile, { method: 'GET', path: pathFor(cursor) }, retryPolicy(opts, io, undefined));
    const data = dataOf(last);
    const list = fieldOf(data, listKey);
    if (opts.json) await print(io, last, true);
    if (last.status !== 200 || !isList(list)) {
      if (!opts.json) await print(io, last, false);
      return exitCodeFor(last.status, data);
    }
    collected.push(...list);
    const next = fieldOf(data, 'next_cursor');
    cursor = typeof next === 'string' ? next : undefined;
    if (!opts.all || !cursor) break;
  }
  if (!opts.json) {
    // The last page's envelope, with every page's items (it is an object: its list was read above).
    const merged: Answer = {
      ...last,
      envelope: {
        ...(last.envelope as SuccessEnvelope),
        data: { ...(dataOf(last) as Record<string, unknown>), [listKey]: collected },
      },
    };
    await print(io, merged, false);
    if (cursor) io.out(`More: add --cursor ${cursor} (or --all)\n`);
  }
  return EXIT.ok;
}

/** `?a=1&b=x` from the defined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
