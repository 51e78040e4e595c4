// The review page's entry (docs/guide/review-page.md): ask for a token once, learn
// what it may do (GET /api/v1/cli/whoami), then route by the URL fragment:
// #/inbox, #/operation/{id}, #/duplicates. The fragment never holds the token.
import { api, pathOf } from './api.js';
import { h, show } from './dom.js';
import { duplicatesView } from './duplicates.js';
import { inboxView } from './inbox.js';
import { operationView, refusal } from './operation.js';
import { forgetToken, storedToken, storeToken } from './session.js';
import type { Whoami } from '../shared/contract/reads.js';

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const who = document.getElementById('who')!;
let me: Whoami | null = null;

function login(message: HTMLElement | null): void {
  nav.hidden = true;
  show(who);
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    'aria-describedby': 'token-help',
  });
  const form = h(
    'form',
    {
      class: 'login',
      onsubmit: (e: Event) => {
        e.preventDefault();
        storeToken(input.value.trim());
        void start();
      },
    },
    h('h2', {}, 'Sign in with an API token'),
    message,
    h('div', { class: 'field' }, h('label', { for: 'token' }, 'API token'), input),
    h(
      'p',
      { id: 'token-help', class: 'muted' },
      'Kept in this browser tab only, until you close it or sign out. Tokens come from ',
      h('code', {}, 'npm run admin -- tokens create'),
      '.',
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Continue'),
  );
  show(main, form);
  input.focus();
}

async function start(): Promise<void> {
  if (!storedToken()) {
    login(null);
    return;
  }
  const answer = await api<Whoami>('GET', pathOf('whoami.show'));
  if (!answer.ok) {
    forgetToken();
    login(refusal(answer.error, 'Sign-in'));
    return;
  }
  me = answer.data;
  show(
    who,
    `${me.actor} · ${me.org_id} · `,
    h(
      'button',
      {
        type: 'button',
        class: 'link',
        onclick: () => {
          forgetToken();
          me = null;
          location.hash = '';
          login(null);
        },
      },
      'Sign out',
    ),
  );
  show(
    nav,
    me.scopes.includes('staged:read') ? h('a', { href: '#/inbox' }, 'Staged operations') : null,
    me.scopes.includes('inbox:read') ? h('a', { href: '#/duplicates' }, 'Duplicates') : null,
  );
  nav.hidden = false;
  await route();
}

async function route(): Promise<void> {
  if (!me) return;
  const hash = location.hash;
  for (const a of nav.querySelectorAll('a')) {
    if (hash.startsWith(a.getAttribute('href') ?? '-')) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const op = /^#\/operation\/([A-Za-z0-9_]+)$/.exec(hash);
  if (op) await operationView(main, me, op[1]!);
  else if (hash === '#/duplicates') await duplicatesView(main, me, []);
  else if (me.scopes.includes('staged:read')) await inboxView(main, { status: '', kind: '', cursors: [] });
  else if (me.scopes.includes('inbox:read')) await duplicatesView(main, me, []);
  else show(main, h('p', {}, 'This token has none of the scopes the page uses (staged:read, inbox:read).'));
}

window.addEventListener('hashchange', () => {
  void route().then(() => main.focus());
});
void start();
