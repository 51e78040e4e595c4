// The plan of a duplicate resolution (docs/guide/review-page.md "Views"):
// the group, the resolution, and per member what apply does to
// it. Everything shown is read from the plan itself.
import { facts, h, table } from './dom.js';
import type { InboxResolvePlan } from '../shared/contract/staged-operation.js';

export function inboxResolveView(plan: InboxResolvePlan): HTMLElement {
  const archiving = plan.resolution === 'archive_duplicates';
  const fate = (id: string): string => {
    if (!archiving) return 'stays; never grouped with these again';
    return id === plan.keep_document_id ? 'kept' : `archived (duplicate of ${String(plan.keep_document_id)})`;
  };
  return h('section', { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, archiving ? 'Duplicate resolution: archive the duplicates' : 'Duplicate resolution: not duplicates'),
    facts([['Group', plan.group_id], ['Resolution', plan.resolution], ['Kept document', plan.keep_document_id ?? '—'], ['Note', plan.note ?? '—']]),
    table('Documents of the group', ['Document', 'On apply'], plan.member_ids.map((id) => [id, fate(id)])),
    h('p', {}, 'Documents are never deleted: an archived document stays readable, with its reason.'));
}
