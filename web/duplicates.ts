// The inbox duplicate overview (GET /api/v1/cli/bookkeeping/inbox/duplicates,
// docs/reference/http-api.md §10): each group's documents side by side with the rule
// that ties them, one page at a time.
import { api, query } from './api.js';
import { h, show } from './dom.js';
import { when } from './format.js';
import { refusal } from './operation.js';
import type { DuplicatePage } from '../shared/contract/reads.js';

const RULES: Record<string, string> = {
  same_file: 'same file (identical SHA-256)',
  same_invoice_number: 'same vendor and invoice number',
  same_amount_date_vendor: 'same vendor, amount and date',
};

export async function duplicatesView(main: HTMLElement, cursors: string[]): Promise<void> {
  const list = h('div', {}, h('p', {}, 'Loading…'));
  show(main, h('h2', {}, 'Duplicate documents in the inbox'), list);
  const answer = await api<DuplicatePage>('GET', `/api/v1/cli/bookkeeping/inbox/duplicates${query({ limit: '10', cursor: cursors.at(-1) })}`);
  if (!answer.ok) { show(list, refusal(answer.error)); return; }
  const { groups, next_cursor: next } = answer.data;
  show(list,
    groups.length ? h('ol', { class: 'groups' }, groups.map((g) => h('li', {},
      h('section', { class: 'group', 'aria-label': `Group ${g.group_id}` },
        h('h3', {}, `Group ${g.group_id}`, h('span', { class: 'muted' }, ` confidence ${g.confidence.toFixed(2)}`)),
        h('div', { class: 'docs' }, g.documents.map((d) => h('article', { class: `doc doc-${d.role}` },
          h('h4', {}, d.document_id),
          h('p', {}, h('span', { class: 'badge' }, d.role), ` ${d.status}, received ${when(d.received_at)}`),
          h('ul', {}, d.reasons.map((r) => h('li', {}, `Rule: ${RULES[r.rule] ?? r.rule} with ${r.with_document_id} (${r.confidence.toFixed(2)})`))))))))))
      : h('p', {}, 'No duplicate groups.'),
    h('nav', { class: 'pager', 'aria-label': 'Pages' },
      cursors.length ? h('button', { type: 'button', onclick: () => void duplicatesView(main, cursors.slice(0, -1)) }, 'Previous page') : null,
      next ? h('button', { type: 'button', onclick: () => void duplicatesView(main, [...cursors, next]) }, 'Next page') : null));
}
