// A tiny element builder: text is always set as text (never parsed as HTML),
// so nothing the API returns can inject markup or script.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  for (const child of children)
    if (child !== null && child !== undefined && child !== false)
      parent.append(child instanceof Node ? child : String(child));
}

/** Tell screen readers what just happened (the page's live region). */
export function announce(text: string): void {
  const region = document.getElementById('status');
  if (region) region.textContent = text;
}

/** A definition list from label/value pairs. */
export function facts(pairs: [string, Child][]): HTMLDListElement {
  return h('dl', { class: 'facts' }, pairs.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]).flat());
}

/** A table with a caption and a header row; rows are cells or [cells, row attributes]. */
export function table(
  caption: string,
  head: string[],
  rows: (Child[] | { cells: Child[]; attrs: Attrs })[],
): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          Array.isArray(r)
            ? h(
                'tr',
                {},
                r.map((c) => h('td', {}, c)),
              )
            : h(
                'tr',
                r.attrs,
                r.cells.map((c) => h('td', {}, c)),
              ),
        ),
      ),
    ),
  );
}
