// One staged operation: the plan as a change to the books, its history and
// plan_hash, and the actions the token and the state allow
// (docs/guide/review-page.md "Which actions are shown"; rules: docs/design/staged-lifecycle.md).
import { api, pathOf, type ApiError, type Answer } from './api.js';
import { announce, facts, h, show, table } from './dom.js';
import { money, when } from './format.js';
import { changesGovernance, kindLabel, planView, REVERT_SCOPES, subjectOf } from './kinds.js';
import { revertAction } from './revert-view.js';
import type { Whoami } from '../shared/contract/reads.js';
import type { StagedOperationDetail as StagedOperation } from '../shared/contract/staged-operation.js';

export async function operationView(main: HTMLElement, me: Whoami, id: string): Promise<void> {
  show(main, h('p', {}, 'Loading…'));
  const answer = await api<StagedOperation>('GET', pathOf('staged_operations.show', { id }));
  if (!answer.ok) {
    show(
      main,
      h('h2', {}, `Operation ${id}`),
      refusal(answer.error),
      h('p', {}, h('a', { href: '#/inbox' }, 'Back to the staged operations')),
    );
    return;
  }
  await learnPolicy(me, answer.data);
  render(main, me, answer.data, null);
}

/**
 * Whether each approval policy version this page has read lets agents approve, by org and version: a version never
 * changes once written (docs/design/staged-lifecycle.md "Approval policies"), so what was read holds.
 */
const agentsMayApprove = new Map<string, boolean>();
const policyKey = (me: Whoami, version: number): string => `${me.org_id}:${version}`;

/**
 * An agent's approval is judged by the policy of the operation's `policy_version`, whose `agents_may_approve` the
 * operation does not carry: read the policy in force, which tells it when that is the operation's version.
 */
async function learnPolicy(me: Whoami, op: StagedOperation): Promise<void> {
  const version = op.approval?.policy_version ?? 0;
  if (!me.agent || op.status !== 'staged' || version === 0 || agentsMayApprove.has(policyKey(me, version))) return;
  const policy = await api<{ version: number; agents_may_approve: boolean }>('GET', pathOf('approval_policy.show'));
  if (policy.ok) agentsMayApprove.set(policyKey(me, policy.data.version), policy.data.agents_may_approve);
}

function render(main: HTMLElement, me: Whoami, op: StagedOperation, message: HTMLElement | null): void {
  const actions = h('div', { id: 'outcome', class: 'outcome' }, message);
  show(
    main,
    h('p', {}, h('a', { href: '#/inbox' }, '← Staged operations')),
    h(
      'h2',
      { id: 'op-title' },
      `${kindLabel(op.kind)} ${op.staged_operation_id}`,
      // Its kind's amount (docs/reference/http-api.md "Amount of each kind"), which approval rules read.
      typeof op.amount_minor === 'number'
        ? [' · ', h('span', { class: 'op-amount', 'data-testid': 'amount' }, money(op.amount_minor, op.currency))]
        : [],
    ),
    facts([
      ['Status', h('span', { class: `status status-${op.status}`, 'data-testid': 'status' }, op.status)],
      ['Subject', subjectOf(op)],
      ['Staged by', op.created_by],
      ['Staged at', when(op.created_at)],
      ['Expires', when(op.expires_at)],
      // What approving it takes and who approved (docs/design/staged-lifecycle.md "Approving under a policy").
      ...(op.approval
        ? ([['Approvals', h('span', { 'data-testid': 'approval' }, approvalLine(op.approval))]] as [
            string,
            HTMLElement,
          ][])
        : []),
      ['plan_hash', h('code', { class: 'hash' }, op.plan_hash)],
    ]),
    actionBar(main, me, op, actions),
    revertAction(me, op, REVERT_SCOPES[op.kind] ?? null),
    actions,
    resultView(op),
    planView(op),
    h(
      'section',
      { 'aria-labelledby': 'history-h' },
      h('h2', { id: 'history-h' }, 'History'),
      table(
        'Who did what',
        ['When', 'Who', 'Change', 'Note', 'Request'],
        op.history.map((item) => [
          when(item.at),
          item.actor,
          `${item.from ?? '—'} → ${item.to}`,
          item.note ?? '',
          h('code', {}, item.request_id),
        ]),
      ),
    ),
  );
}

/** Only the actions the token's scopes and the operation's status allow (docs/design/staged-lifecycle.md "Rules"). */
function actionBar(main: HTMLElement, me: Whoami, op: StagedOperation, outcome: HTMLElement): HTMLElement | null {
  const canApprove = me.scopes.includes('staged:approve');
  const canApply = me.scopes.includes('staged:apply');
  // A viewer whose approval the API would refuse is told why instead of offered a button that fails.
  const reason = canApprove && op.status === 'staged' ? whyNoApproval(me, op) : null;
  const mayApprove = canApprove && op.status === 'staged' && reason === null;
  const mayReject = canApprove && (op.status === 'staged' || op.status === 'approved');
  const mayApply = canApply && (op.status === 'approved' || op.status === 'applying');
  const whyNot = reason ? h('p', { class: 'note', 'data-testid': 'why-no-approve' }, reason) : null;
  if (!mayApprove && !mayReject && !mayApply) return whyNot;

  const run = async (label: string, action: 'approve' | 'reject' | 'apply', body: object): Promise<void> => {
    for (const b of bar.querySelectorAll('button')) b.disabled = true;
    show(outcome, h('p', { class: 'pending', 'data-testid': 'pending' }, `${label}: pending…`));
    announce(`${label}: pending`);
    const answer = await follow<StagedOperation>(
      await api<StagedOperation | { outcome: 'pending'; job_id: string }>(
        'POST',
        pathOf(`staged_operations.${action}`, { id: op.staged_operation_id }),
        body,
        { 'idempotency-key': crypto.randomUUID(), prefer: 'wait=20' },
      ),
    );
    if (answer.ok) {
      announce(`${label}: done, status ${answer.data.status}`);
      render(main, me, answer.data, h('p', { class: 'done' }, `${label}: done. Status is now ${answer.data.status}.`));
      document.getElementById('op-title')?.focus();
    } else {
      // Never hide a refusal: the API's own message and code, as answered.
      const latest = await api<StagedOperation>(
        'GET',
        pathOf('staged_operations.show', { id: op.staged_operation_id }),
      );
      render(main, me, latest.ok ? latest.data : op, refusal(answer.error, label));
      document.getElementById('refusal')?.focus();
      announce(`${label} refused: ${answer.error.message}`);
    }
  };

  const note = h('textarea', { id: 'note', name: 'note', rows: 2, maxlength: 1000 });
  const bar: HTMLElement = h(
    'section',
    { class: 'actions', 'aria-labelledby': 'actions-h' },
    h('h2', { id: 'actions-h', class: 'visually-hidden' }, 'Actions'),
    whyNot,
    mayApprove || mayReject
      ? h('div', { class: 'field' }, h('label', { for: 'note' }, 'Note (required to reject)'), note)
      : null,
    h(
      'div',
      { class: 'buttons' },
      mayApprove
        ? h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: () => void run('Approve', 'approve', note.value.trim() ? { note: note.value.trim() } : {}),
            },
            'Approve',
          )
        : null,
      mayReject
        ? h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () => {
                if (!note.value.trim()) {
                  show(
                    outcome,
                    h('p', { class: 'error', role: 'alert' }, 'Write a note to reject: it is kept in the history.'),
                  );
                  note.focus();
                  return;
                }
                void run('Reject', 'reject', { note: note.value.trim() });
              },
            },
            'Reject',
          )
        : null,
      mayApply
        ? h('button', { type: 'button', class: 'primary', onclick: () => void run('Apply', 'apply', {}) }, 'Apply')
        : null,
    ),
  );
  return bar;
}

/** A 202 means the job goes on: poll its Location until it answers for good. */
export async function follow<T>(answer: Answer<T | { outcome: 'pending'; job_id: string }>): Promise<Answer<T>> {
  return followAnswer(answer as Answer<StagedOperation | { outcome: 'pending'; job_id: string }>) as Promise<Answer<T>>;
}

async function followAnswer(
  answer: Answer<StagedOperation | { outcome: 'pending'; job_id: string }>,
): Promise<Answer<StagedOperation>> {
  let current = answer;
  for (let i = 0; i < 120 && current.ok && current.status === 202; i += 1) {
    const location = current.location ?? pathOf('jobs.show', { job_id: (current.data as { job_id: string }).job_id });
    await new Promise((r) => setTimeout(r, 1000));
    current = await api('GET', location);
  }
  if (current.ok && current.status === 202)
    return {
      ok: false,
      status: 202,
      error: {
        code: 'still_pending',
        status: 202,
        message: 'The job is still running; reload the page later to see its result.',
        details: {},
      },
    };
  return current as Answer<StagedOperation>;
}

export function refusal(error: ApiError, label?: string): HTMLElement {
  const details = Object.keys(error.details ?? {}).length
    ? h('pre', { class: 'details' }, JSON.stringify(error.details, null, 2))
    : null;
  return h(
    'div',
    { id: 'refusal', class: 'error', role: 'alert', tabindex: -1, 'data-testid': 'refusal' },
    h(
      'p',
      {},
      h('strong', {}, label ? `${label} refused` : 'Refused'),
      ` (${error.status} ${error.code}): `,
      h('span', { 'data-testid': 'refusal-message' }, error.message),
    ),
    details,
  );
}

function resultView(op: StagedOperation): HTMLElement | null {
  const r = op.result;
  if (!r) return null;
  if (r.error) {
    const changed =
      (r.error.details?.changed as
        { collection: string; id: string; expected_version: number; actual_version: number | null }[] | undefined) ??
      [];
    return h(
      'section',
      { class: 'error', 'aria-labelledby': 'result-h' },
      h('h2', { id: 'result-h' }, `Apply ended ${op.status}`),
      h('p', {}, `${r.error.code}: ${r.error.message}`),
      changed.length
        ? table(
            'Documents that changed since staging',
            ['Collection', 'Id', 'Expected version', 'Found'],
            changed.map((c) => [c.collection, c.id, c.expected_version, c.actual_version ?? 'gone']),
          )
        : null,
    );
  }
  return h(
    'section',
    { 'aria-labelledby': 'result-h' },
    h('h2', { id: 'result-h' }, 'Applied'),
    facts([
      ['At', r.at ? when(r.at) : '—'],
      ['By', r.by ?? '—'],
    ]),
    table(
      'What apply wrote',
      ['Action', 'Collection', 'Id'],
      (r.changes ?? []).map((c) => [c.action, c.collection, c.id]),
    ),
  );
}

/** e.g. "1 of 2 approvals, people only: bob" (docs/guide/review-page.md "Which actions are shown"). */
function approvalLine(approval: NonNullable<StagedOperation['approval']>): string {
  const who = approval.given.map((g) => g.actor).join(', ');
  const people = approval.approvers === 'people' ? ', people only' : '';
  return `${approval.given.length} of ${approval.required} approval${approval.required === 1 ? '' : 's'}${people}${who ? `: ${who}` : ''}`;
}

/**
 * Why the API would refuse this viewer's approval, in the order it checks
 * (docs/design/staged-lifecycle.md "Approving under a policy"), or null.
 */
function whyNoApproval(me: Whoami, op: StagedOperation): string | null {
  const approval = op.approval;
  const creatorBarred =
    me.require_distinct_approver !== false || (approval?.policy_version ?? 0) >= 1 || changesGovernance(op);
  if (op.created_by === me.actor && creatorBarred)
    return `You (${me.actor}) staged this operation, and your organisation requires another person to approve it: ask someone else with staged:approve.`;
  if (me.agent && approval?.approvers === 'people')
    return `You (${me.actor}) act as an agent, and this operation needs approvals by people only: ask a person with staged:approve.`;
  if (me.agent && approval && agentsMayApprove.get(policyKey(me, approval.policy_version)) === false)
    return `You (${me.actor}) act as an agent, and the approval policy (version ${approval.policy_version}) admits no agent's approval: ask a person with staged:approve.`;
  if (approval?.given.some((g) => g.actor === me.actor))
    return `You (${me.actor}) approved this operation already; it needs ${approval.remaining} more approval${approval.remaining === 1 ? '' : 's'} by someone else.`;
  return null;
}
