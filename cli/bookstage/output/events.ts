// The event feed and webhook endpoints as tables (bookstage events list,
// webhooks list, webhooks deliveries): one row per event, endpoint or
// delivery attempt; `--json` prints the envelope instead.
import type { Style } from './style.js';
import { table } from './table.js';

type Row = Record<string, unknown>;

const text = (v: unknown): string => {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.length > 0 ? v.join(',') : 'all';
  if (typeof v === 'string') return v;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
};
const operationOf = (e: Row): unknown =>
  ((e.data as Row | undefined)?.staged_operation as Row | undefined)?.staged_operation_id;

/** The rendering of a list answer of these operations; null for any other. */
export function renderEventsAnswer(style: Style, operation: string | null, data: unknown): string | null {
  const items = (data as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return null;
  const rows = items as Row[];
  const next = (data as { next_cursor?: unknown }).next_cursor;
  switch (operation) {
    case 'events.list':
      if (rows.length === 0) return 'No events.\n';
      return (
        table(
          style,
          ['sequence', 'type', 'staged operation', 'at', 'id'],
          rows.map((e) => [text(e.sequence), text(e.type), text(operationOf(e)), text(e.created_at), text(e.id)]),
        ) + (typeof next === 'string' ? style.dim(`more: bookstage events list --after ${next}`) + '\n' : '')
      );
    case 'webhook_endpoints.list':
      if (rows.length === 0) return 'No webhook endpoints.\n';
      return table(
        style,
        ['id', 'url', 'event types', 'delivered through', 'retrying'],
        rows.map((w) => [
          text(w.id),
          text(w.url),
          text(w.event_types),
          text(w.delivered_through),
          w.retry ? `event ${text((w.retry as Row).sequence)} at ${text((w.retry as Row).next_at)}` : '',
        ]),
      );
    case 'webhook_endpoints.deliveries':
      if (rows.length === 0) return 'No delivery attempts.\n';
      return table(
        style,
        ['at', 'sequence', 'type', 'attempt', 'outcome', 'status', 'ms', 'error'],
        rows.map((d) => [
          text(d.at),
          text(d.sequence),
          text(d.event_type),
          text(d.attempt),
          text(d.outcome),
          text(d.status_code),
          text(d.duration_ms),
          d.error ? text(d.error) : '',
        ]),
      );
    case null:
    default:
      return null;
  }
}
