// The inbox of staged operations: filters by status and kind, newest first,
// one page at a time (GET /api/v1/cli/staged-operations, docs/design/staged-lifecycle.md
// "List"). The cursor is only valid for the same filters, so changing a
// filter starts again at the first page.
import { api, pathOf, query } from './api.js';
import { h, show, table } from './dom.js';
import { when } from './format.js';
import { refusal } from './operation.js';
import { KIND_OPTIONS, kindLabel, subjectOf, summaryOf } from './kinds.js';
import type { StagedOperationPage as StagedPage, StagedStatus } from '../shared/contract/staged-operation.js';

const STATUSES = [
  'staged',
  'approved',
  'applying',
  'applied',
  'rejected',
  'expired',
  'failed',
  'stale',
] as const satisfies readonly StagedStatus[];
const PAGE = '20';

export interface InboxState {
  status: string;
  kind: string;
  cursors: string[];
}

export async function inboxView(main: HTMLElement, state: InboxState): Promise<void> {
  const select = (id: string, label: string, options: [string, string][], value: string) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h(
        'select',
        { id, name: id },
        options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
      ),
    );
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter staged operations',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const value = (name: string): string => (form.elements.namedItem(name) as HTMLSelectElement).value;
        void inboxView(main, { status: value('status'), kind: value('kind'), cursors: [] });
      },
    },
    select('status', 'Status', [['', 'any'], ...STATUSES.map((s): [string, string] => [s, s])], state.status),
    select('kind', 'Kind', [['', 'any'], ...KIND_OPTIONS], state.kind),
    h('button', { type: 'submit' }, 'Show'),
  );
  const list = h('div', { id: 'operations', class: 'operations', 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  show(main, h('h2', {}, 'Staged operations'), form, list);

  const cursor = state.cursors.at(-1);
  const answer = await api<StagedPage>(
    'GET',
    `${pathOf('staged_operations.list')}${query({ status: state.status, kind: state.kind, limit: PAGE, cursor })}`,
  );
  if (!answer.ok) {
    show(list, refusal(answer.error));
    return;
  }
  const { items, next_cursor: next } = answer.data;
  const pageNo = state.cursors.length + 1;
  show(
    list,
    items.length
      ? table(
          `Page ${pageNo}, newest first`,
          ['Operation', 'Kind', 'Status', 'Subject', 'Summary', 'Staged by', 'Staged at', 'Expires'],
          items.map((op) => [
            h('a', { href: `#/operation/${op.staged_operation_id}` }, op.staged_operation_id),
            kindLabel(op.kind),
            h('span', { class: `status status-${op.status}` }, op.status),
            subjectOf(op),
            summaryOf(op),
            op.created_by,
            when(op.created_at),
            when(op.expires_at),
          ]),
        )
      : h('p', {}, 'No staged operations match.'),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      state.cursors.length
        ? h(
            'button',
            { type: 'button', onclick: () => void inboxView(main, { ...state, cursors: state.cursors.slice(0, -1) }) },
            'Previous page',
          )
        : null,
      next
        ? h(
            'button',
            { type: 'button', onclick: () => void inboxView(main, { ...state, cursors: [...state.cursors, next] }) },
            'Next page',
          )
        : null,
    ),
  );
}
