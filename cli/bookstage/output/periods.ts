// The closed periods (docs/design/staged-lifecycle.md "Closed periods") as a
// bookkeeper reads them: the list, and one period checked against its records.
// Chosen by the envelope's operation.
import type { Style } from './style.js';
import { table } from './table.js';

type Row = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function renderPeriods(style: Style, operation: string | null, data: unknown): string | null {
  const row = (data ?? {}) as Row;
  switch (operation) {
    case 'periods.list': {
      const items = Array.isArray(row.items) ? (row.items as Row[]) : [];
      return (
        table(
          style,
          ['THROUGH', 'CLOSED AT', 'APPROVED BY', 'HASH', 'BY OPERATION'],
          items.map((p) => [
            str(p.through),
            str(p.closed_at),
            str(p.approved_by),
            `${str(p.hash).slice(0, 12)}…`,
            str(p.staged_operation_id),
          ]),
        ) || 'No closed periods.\n'
      );
    }
    case 'periods.show':
      return (
        `Period through ${style.bold(str(row.through))}, closed ${str(row.closed_at)}, approved by ${str(row.approved_by)}\n` +
        `  stored hash   ${str(row.stored_hash)}\n` +
        `  current hash  ${str(row.current_hash)}\n` +
        (row.intact === true
          ? `  ${style.green('intact')}: no record of the period changed since it was closed\n`
          : `  ${style.red('changed')}: a record of the period changed since it was closed\n`)
      );
    case null:
    default:
      return null;
  }
}
