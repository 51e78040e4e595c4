// The plan of a duplicate resolution (docs/guide/review-page.md "Views"):
// the group, the resolution, and per member what apply does to it, with the
// document's own facts (received, file, vendor, invoice, total) from the
// operation's context, so the reviewer sees which document is kept and which
// are archived without opening each one.
import { documentFacts } from './document-facts.js';
import { facts, h, table } from './dom.js';
import { when } from './format.js';
import type {
  DocumentContext,
  InboxResolvePlan,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

export function inboxResolveView(op: StagedOperation): HTMLElement {
  const plan = op.plan as InboxResolvePlan;
  const documents = new Map<string, DocumentContext>((op.context?.inbox_documents ?? []).map((d) => [d.id, d]));
  const archiving = plan.resolution === 'archive_duplicates';
  const fate = (id: string): string => {
    if (!archiving) return 'stays; never grouped with these again';
    return id === plan.keep_document_id ? 'kept' : `archived (duplicate of ${String(plan.keep_document_id)})`;
  };
  // The kept document first, then the others in plan order.
  const members = archiving
    ? [...plan.member_ids].sort((a, b) => Number(b === plan.keep_document_id) - Number(a === plan.keep_document_id))
    : plan.member_ids;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h(
      'h2',
      { id: 'plan-h' },
      archiving ? 'Duplicate resolution: archive the duplicates' : 'Duplicate resolution: not duplicates',
    ),
    facts([
      ['Group', plan.group_id],
      ['Resolution', plan.resolution],
      ['Kept document', plan.keep_document_id ?? '—'],
      ['Note', plan.note ?? '—'],
    ]),
    table(
      'Documents of the group',
      ['Document', 'On apply', 'Received', 'File', 'Vendor', 'Invoice', 'Total'],
      members.map((id) => {
        const d = documents.get(id);
        return {
          cells: [
            id,
            fate(id),
            d ? when(d.received_at) : '—',
            ...documentFacts(d?.file, d?.extracted).map(([, v]) => v),
          ],
          attrs: { 'data-testid': `member-${id}` },
        };
      }),
    ),
    h('p', {}, 'Documents are never deleted: an archived document stays readable, with its reason.'),
  );
}
