// The inbox duplicate overview: each group with its documents and the rules
// that tie them together.
import type { DuplicateGroup } from './answer-data.js';
import type { Style } from './style.js';
import { table } from './table.js';

export function renderDuplicateGroups(style: Style, groups: DuplicateGroup[]): string {
  if (groups.length === 0) return 'No duplicate groups.\n';
  return groups
    .map((g) => {
      const head = `${style.bold(g.group_id)}  confidence ${Number(g.confidence).toFixed(2)}  ${g.documents.length} documents, canonical ${g.canonical_document_id}\n`;
      return (
        head +
        table(
          style,
          ['document', 'role', 'status', 'received', 'reasons'],
          g.documents.map((d) => [
            d.document_id,
            d.role,
            d.status,
            d.received_at,
            (d.reasons ?? [])
              .map((r) => `${r.rule} with ${r.with_document_id} (${Number(r.confidence).toFixed(2)})`)
              .join('; '),
          ]),
        )
      );
    })
    .join('\n');
}
