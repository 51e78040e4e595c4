// The inbox duplicate overview (GET /api/v1/cli/bookkeeping/inbox/duplicates,
// docs/reference/http-api.md §10): each group's documents side by side with
// what they are (file, vendor, invoice number, total) and the rule that ties
// them, one page at a time; and the two ways to resolve a group, which stage
// an operation for review (docs/guide/review-page.md "Views").
import { api, pathOf, query } from './api.js';
import { facts, h, show } from './dom.js';
import { documentFacts } from './document-facts.js';
import { when } from './format.js';
import { follow, refusal } from './operation.js';
import type { DuplicatePage, Whoami } from '../shared/contract/reads.js';

const RULES: Record<string, string> = {
  same_file: 'same file (identical SHA-256)',
  same_invoice_number: 'same vendor and invoice number',
  same_amount_date_vendor: 'same vendor, amount and date',
};

type Group = DuplicatePage['groups'][number];
type Member = Group['documents'][number];

/** The scope that may stage a resolution (its route comes with the `inbox_duplicates_resolve` kind). */
const RESOLVE_SCOPE = 'inbox:stage';

export async function duplicatesView(main: HTMLElement, me: Whoami, cursors: string[]): Promise<void> {
  const list = h('div', {}, h('p', {}, 'Loading…'));
  show(main, h('h2', {}, 'Duplicate documents in the inbox'), list);
  const answer = await api<DuplicatePage>(
    'GET',
    `${pathOf('inbox_duplicates.list')}${query({ limit: '10', cursor: cursors.at(-1) })}`,
  );
  if (!answer.ok) {
    show(list, refusal(answer.error));
    return;
  }
  const { groups, next_cursor: next } = answer.data;
  const mayResolve = (me.scopes as string[]).includes(RESOLVE_SCOPE);
  show(
    list,
    groups.length
      ? h(
          'ol',
          { class: 'groups' },
          groups.map((g) =>
            h(
              'li',
              {},
              h(
                'section',
                { class: 'group', 'aria-label': `Group ${g.group_id}` },
                h(
                  'h3',
                  {},
                  `Group ${g.group_id}`,
                  h('span', { class: 'muted' }, ` confidence ${g.confidence.toFixed(2)}`),
                ),
                h('div', { class: 'docs' }, g.documents.map(documentCard)),
                mayResolve
                  ? resolveForm(g)
                  : h('p', { class: 'note' }, `Resolving a group needs a token with ${RESOLVE_SCOPE}.`),
              ),
            ),
          ),
        )
      : h('p', {}, 'No duplicate groups.'),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      cursors.length
        ? h(
            'button',
            { type: 'button', onclick: () => void duplicatesView(main, me, cursors.slice(0, -1)) },
            'Previous page',
          )
        : null,
      next
        ? h('button', { type: 'button', onclick: () => void duplicatesView(main, me, [...cursors, next]) }, 'Next page')
        : null,
    ),
  );
}

function documentCard(d: Member): HTMLElement {
  return h(
    'article',
    { class: `doc doc-${d.role}`, 'data-testid': 'duplicate-document' },
    h('h4', {}, d.document_id),
    h('p', {}, h('span', { class: 'badge' }, d.role), ` ${d.status}, received ${when(d.received_at)}`),
    facts(documentFacts(d.file, d.extracted)),
    h(
      'ul',
      {},
      d.reasons.map((r) =>
        h('li', {}, `Rule: ${RULES[r.rule] ?? r.rule} with ${r.with_document_id} (${r.confidence.toFixed(2)})`),
      ),
    ),
  );
}

/** Two resolutions, each staged for review with the user's token; the answer links to the staged operation. */
function resolveForm(g: Group): HTMLElement {
  const name = `keep-${g.group_id}`;
  const outcome = h('div', { class: 'outcome', 'aria-live': 'polite' });
  const stage = async (body: object, label: string, buttons: HTMLButtonElement[]): Promise<void> => {
    for (const b of buttons) b.disabled = true;
    show(outcome, h('p', { class: 'pending' }, `${label}: staging…`));
    const answer = await follow<{ staged_operation_id?: string; outcome: string }>(
      await api<{ staged_operation_id?: string; outcome: string } | { outcome: 'pending'; job_id: string }>(
        'POST',
        pathOf('inbox_duplicates_resolve.stage', { group_id: g.group_id }),
        body,
        { 'idempotency-key': crypto.randomUUID(), prefer: 'wait=20' },
      ),
    );
    for (const b of buttons) b.disabled = false;
    if (!answer.ok) {
      show(outcome, refusal(answer.error, label));
      return;
    }
    const id = answer.data.staged_operation_id;
    show(
      outcome,
      h(
        'p',
        { class: 'done' },
        `${label}: staged for review, nothing changed yet. `,
        id ? h('a', { href: `#/operation/${id}` }, `Review operation ${id}`) : `Outcome: ${answer.data.outcome}.`,
      ),
    );
  };
  const keepButton = h(
    'button',
    { type: 'button', class: 'primary' },
    'Stage: keep the chosen document, archive the others',
  );
  const apartButton = h('button', { type: 'button' }, 'Stage: these are not duplicates');
  const buttons = [keepButton, apartButton];
  const form = h(
    'fieldset',
    { class: 'resolve' },
    h('legend', {}, 'Resolve this group (staged for review; nothing changes until it is approved and applied)'),
    g.documents.map((d, i) =>
      h(
        'div',
        { class: 'choice' },
        h('input', { type: 'radio', id: `${name}-${i}`, name, value: d.document_id, checked: d.role === 'canonical' }),
        h('label', { for: `${name}-${i}` }, `Keep ${d.document_id}${d.file ? ` (${d.file.name})` : ''}`),
      ),
    ),
    h('div', { class: 'buttons' }, keepButton, apartButton),
    outcome,
  );
  keepButton.addEventListener('click', () => {
    const kept =
      form.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value ?? g.canonical_document_id;
    void stage({ resolution: 'archive_duplicates', keep_document_id: kept }, 'Archive duplicates', buttons);
  });
  apartButton.addEventListener('click', () => void stage({ resolution: 'not_duplicates' }, 'Not duplicates', buttons));
  return form;
}
