// The plan of a revert (docs/guide/review-page.md "Views"; docs/design/staged-lifecycle.md
// "Reverts"): the operation it reverts, then what comes back, record by
// record: each record's value now and the value the revert gives it back, a
// record removed, or one restored as it was.
import { api, pathOf } from './api.js';
import { facts, h, show, table } from './dom.js';
import type { Whoami } from '../shared/contract/reads.js';
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

/**
 * "Stage a revert" on an applied operation not yet reverted, offered to a
 * token that holds the scope that stages its kind (docs/guide/review-page.md
 * "Which actions are shown"); the answer links to the staged revert.
 */
export function revertAction(me: Whoami, op: StagedOperation, scope: string | null): HTMLElement | null {
  if (op.status !== 'applied' || scope === null || !(me.scopes as readonly string[]).includes(scope)) return null;
  if (op.reverted_by)
    return h(
      'p',
      { class: 'note', 'data-testid': 'reverted-by' },
      'Reverted by ',
      h('a', { href: `#/operation/${op.reverted_by}` }, op.reverted_by),
    );
  const outcome = h('div', { class: 'outcome', 'data-testid': 'revert-outcome' });
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      'data-testid': 'stage-revert',
      onclick: () => {
        button.disabled = true;
        show(outcome, h('p', { class: 'pending' }, 'Stage a revert: pending…'));
        void api<{ staged_operation_id: string }>(
          'POST',
          pathOf('revert.stage', { id: op.staged_operation_id }),
          {},
          { 'idempotency-key': crypto.randomUUID(), prefer: 'wait=20' },
        ).then((answer) => {
          button.disabled = false;
          show(
            outcome,
            answer.ok && answer.data.staged_operation_id
              ? h(
                  'p',
                  { class: 'done' },
                  'Revert staged: ',
                  h('a', { href: `#/operation/${answer.data.staged_operation_id}` }, answer.data.staged_operation_id),
                  ', for review like any other operation.',
                )
              : h(
                  'p',
                  { class: 'error', role: 'alert' },
                  answer.ok ? 'The revert is still being computed.' : `${answer.error.code}: ${answer.error.message}`,
                ),
          );
        });
      },
    },
    'Stage a revert',
  );
  return h('section', { class: 'actions', 'aria-label': 'Revert' }, h('div', { class: 'buttons' }, button), outcome);
}
