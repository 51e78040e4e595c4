// The plan of a revert (docs/guide/review-page.md "Views"; docs/design/staged-lifecycle.md
// "Reverts"): the operation it reverts, then what comes back, record by
// record: each record's value now and the value the revert gives it back, a
// record removed, or one restored as it was.
import { facts, h, table } from './dom.js';
import type { RevertPlan, StagedOperationDetail as StagedOperation } from '../shared/contract/staged-operation.js';

const shown = (fields: Record<string, unknown>): string =>
  Object.entries(fields)
    .filter(([k]) => k !== 'version')
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ');

export function revertView(op: StagedOperation): HTMLElement {
  const plan = op.plan as RevertPlan;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, `Revert of ${plan.reverts_kind} ${plan.reverts}`),
    facts([
      ['Reverts', plan.reverts],
      ['Its kind', plan.reverts_kind],
      ['Records written back', String(plan.changes.length)],
    ]),
    table(
      'What comes back, record by record',
      ['Record', 'Now', 'After the revert'],
      plan.changes.map((c) => ({
        cells: [
          `${c.collection} ${c.id}`,
          c.action === 'insert' ? 'absent' : c.action === 'update' ? shown(c.before) : shown(c.doc),
          c.action === 'insert' ? `restored: ${shown(c.doc)}` : c.action === 'update' ? shown(c.set) : 'removed',
        ],
        attrs: { 'data-testid': `change-${c.id}` },
      })),
    ),
  );
}
