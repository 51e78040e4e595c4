// bookstage events list|tail → GET /api/v1/cli/events, and
// bookstage webhooks add|list|remove|deliveries → /api/v1/cli/webhook-endpoints…
// (docs/reference/webhooks.md). `events tail --forward-to URL` follows the feed and
// POSTs each event to a local URL signed like a real delivery, with a secret
// it prints, as `stripe listen` does.
import { pathOf } from '../../../shared/contract/route-paths.js';
import type { Command } from 'commander';
import { query, runRequest, type CommonOptions } from '../call.js';
import { resolveProfile } from '../config.js';
import { exitCodeFor } from '../exit-codes.js';
import { dataOf, errorOf, send } from '../http-client.js';
import type { Io } from '../io.js';
import { example, nonNegative, withCommon } from './options.js';
import { topLevel } from './top-level.js';

interface ListOptions extends CommonOptions {
  type?: string;
  limit?: number;
  after?: string;
}
interface TailOptions extends CommonOptions {
  type?: string;
  forwardTo?: string;
  interval?: number;
  fromStart?: boolean;
  secret?: string;
}
interface AddOptions extends CommonOptions {
  eventType?: string[];
  description?: string;
}

interface FeedEvent {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
  data: { staged_operation: { staged_operation_id: string } };
}

export function eventsCommands(program: Command, io: Io, done: (code: number) => void): void {
  const events = example(
    topLevel(program, 'events'),
    'bookstage events list --type staged_operation.applied',
    'bookstage events tail --forward-to http://localhost:3000/hook',
  );

  const list = events.command('list').description('one page of events, oldest first by sequence');
  withCommon(list)
    .option('--type <type>', 'only this type, e.g. staged_operation.applied')
    .option('--limit <n>', 'events per page (1-100)', nonNegative('--limit'))
    .option('--after <cursor>', 'the next_cursor of a previous page: what happened since')
    .action(async (opts: ListOptions) => {
      done(
        await runRequest(
          {
            method: 'GET',
            path: `${pathOf('events.list')}${query({ type: opts.type, limit: opts.limit, after: opts.after })}`,
          },
          opts,
          io,
        ),
      );
    });

  const tail = events
    .command('tail')
    .description(
      'follow the feed: print each new event (one JSON per line with --json), optionally forward it signed to a URL',
    );
  withCommon(tail)
    .option('--type <type>', 'only this type')
    .option('--forward-to <url>', 'POST each event to this URL with Bookstage-Event-Id and Bookstage-Signature headers')
    .option('--secret <secret>', 'sign forwarded events with this secret (default: a new one, printed at start)')
    .option('--from-start', 'begin with the oldest retained event instead of the next new one')
    .option('--interval <seconds>', 'seconds between polls (default 2)', nonNegative('--interval'))
    .action(async (opts: TailOptions) => {
      done(await tailEvents(opts, io));
    });
  example(tail, 'bookstage events tail --forward-to http://localhost:3000/hook');

  const hooks = example(topLevel(program, 'webhooks'), 'bookstage webhooks add https://example.com/hook');
  const add = hooks
    .command('add')
    .argument('<url>', 'an https URL on a public address')
    .description('create an endpoint; its signing secret is printed this once');
  withCommon(add)
    .option('--event-type <type...>', 'only these types (default: all)')
    .option('--description <text>', 'free text for people')
    .action(async (url: string, opts: AddOptions) => {
      done(
        await runRequest(
          {
            method: 'POST',
            path: pathOf('webhook_endpoints.create'),
            body: {
              url,
              ...(opts.eventType ? { event_types: opts.eventType } : {}),
              ...(opts.description ? { description: opts.description } : {}),
            },
          },
          opts,
          io,
        ),
      );
    });
  withCommon(hooks.command('list').description("the organisation's endpoints and their delivery progress")).action(
    async (opts: CommonOptions) => {
      done(await runRequest({ method: 'GET', path: pathOf('webhook_endpoints.list') }, opts, io));
    },
  );
  withCommon(
    hooks
      .command('remove')
      .argument('<id>', 'an endpoint id (whe_…)')
      .description('delete an endpoint: no more deliveries to it'),
  ).action(async (id: string, opts: CommonOptions) => {
    done(await runRequest({ method: 'DELETE', path: pathOf('webhook_endpoints.delete', { id }) }, opts, io));
  });
  const deliveries = hooks
    .command('deliveries')
    .argument('<id>', 'an endpoint id (whe_…)')
    .description("the endpoint's delivery attempts, newest first");
  withCommon(deliveries)
    .option('--limit <n>', 'attempts to show (1-200)', nonNegative('--limit'))
    .action(async (id: string, opts: CommonOptions & { limit?: number }) => {
      done(
        await runRequest(
          { method: 'GET', path: `${pathOf('webhook_endpoints.deliveries', { id })}${query({ limit: opts.limit })}` },
          opts,
          io,
        ),
      );
    });
}

/** Poll the feed until interrupted (or an error answer: its exit code). */
async function tailEvents(opts: TailOptions, io: Io): Promise<number> {
  const profile = resolveProfile(opts.profile, io.env);
  const policy = { retries: opts.retries ?? 3, baseDelayMs: 500, onRetry: () => undefined };
  // Loaded here, not with the command's definition: a command starts with what it defines (docs/design/performance.md "CLI start and book pages").
  const { randomBytes } = await import('node:crypto');
  const secret = opts.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  if (opts.forwardTo) io.err(`Forwarding events to ${opts.forwardTo}, signed with ${secret}\n`);
  let after: string | undefined;
  let catchingUp = !opts.fromStart;
  for (;;) {
    const answer = await send(
      profile,
      { method: 'GET', path: `${pathOf('events.list')}${query({ type: opts.type, limit: 100, after })}` },
      policy,
    );
    const data = dataOf(answer) as { items?: FeedEvent[]; next_cursor?: string } | undefined;
    if (answer.status !== 200 || !data?.items) {
      io.err(`bookstage: ${errorOf(answer)?.message ?? `HTTP ${answer.status}`}\n`);
      return exitCodeFor(answer.status, dataOf(answer));
    }
    after = data.next_cursor;
    if (!catchingUp) {
      for (const event of data.items) {
        if (opts.json) io.out(`${JSON.stringify(event)}\n`);
        else
          io.out(
            `${event.created_at}  #${event.sequence}  ${event.type}  ${event.data.staged_operation.staged_operation_id}  ${event.id}\n`,
          );
        if (opts.forwardTo) await forward(opts.forwardTo, event, secret, io);
      }
    }
    // Caught up: from here on every event is new.
    if (data.items.length < 100) {
      catchingUp = false;
      await new Promise((resolve) => setTimeout(resolve, (opts.interval ?? 2) * 1000));
    }
  }
}

async function forward(url: string, event: FeedEvent, secret: string, io: Io): Promise<void> {
  const { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } = await import('../../../shared/webhook-signature.js');
  const body = JSON.stringify(event);
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      body,
      headers: {
        'content-type': 'application/json',
        [EVENT_ID_HEADER]: event.id,
        [SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
      },
    });
    io.err(`  → ${url} ${res.status}\n`);
  } catch (err) {
    io.err(`  → ${url} failed: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}\n`);
  }
}
