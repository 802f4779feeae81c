/** Small DOM helpers: elements, keyboard-usable sortable tables, cursor pagers, uPlot charts. */
import uPlot from 'uplot';

type Child = Node | string | number | null | undefined | false;

/** Creates an element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, unknown> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

/** A link to a page of the dashboard. */
export function link(hash: string, text: string, title?: string): HTMLAnchorElement {
  return h('a', { href: hash, title }, text);
}

/** A column of a table: header, cell renderer, optional sort value (client-side sorting) or server sort key. */
export interface Column<T> {
  title: string;
  cell: (row: T) => Child;
  /** Client-side sort value (numbers/bigints compare numerically). */
  sort?: (row: T) => number | bigint | string | null;
  /** Server-side sort key: clicking the header calls `onSort(key)` instead of sorting locally. */
  sortKey?: string;
  numeric?: boolean;
}

/** Table options: the row's link (Enter on a focused row follows it), the server-side sort in effect. */
export interface TableOptions<T> {
  rowLink?: (row: T) => string | undefined;
  sortedBy?: string;
  onSort?: (key: string) => void;
  caption?: string;
}

/**
 * A keyboard-usable table: headers that sort are buttons-like (tabindex 0, Enter/Space sorts,
 * aria-sort), rows are focusable (Enter follows the row's link, arrow keys move between rows).
 */
export function table<T>(rows: T[], cols: Column<T>[], opts: TableOptions<T> = {}): HTMLElement {
  let local: { i: number; dir: 1 | -1 } | null = null;
  const tbody = h('tbody');
  const head = h('tr');
  const draw = (): void => {
    let data = rows;
    if (local) {
      const c = cols[local.i]!;
      const dir = local.dir;
      data = [...rows].sort((a, b) => {
        const x = c.sort!(a);
        const y = c.sort!(b);
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * dir;
      });
    }
    tbody.replaceChildren(
      ...data.map((r) => {
        const href = opts.rowLink?.(r);
        const tr = h('tr', { tabindex: 0, 'data-href': href }, ...cols.map((c) => h('td', { class: c.numeric ? 'num' : undefined }, c.cell(r))));
        tr.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' && href && e.target === tr) location.hash = href;
          else if (e.key === 'ArrowDown') (tr.nextElementSibling as HTMLElement | null)?.focus();
          else if (e.key === 'ArrowUp') (tr.previousElementSibling as HTMLElement | null)?.focus();
          else return;
          e.preventDefault();
        });
        if (href) tr.addEventListener('dblclick', () => (location.hash = href));
        return tr;
      }),
    );
    if (data.length === 0) tbody.append(h('tr', {}, h('td', { colspan: cols.length, class: 'empty' }, 'No rows')));
  };
  cols.forEach((c, i) => {
    const sortable = c.sort !== undefined || (c.sortKey !== undefined && opts.onSort !== undefined);
    const th = h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.title);
    if (sortable) {
      th.tabIndex = 0;
      th.classList.add('sortable');
      const state = c.sortKey !== undefined ? (opts.sortedBy === c.sortKey ? 'descending' : 'none') : 'none';
      th.setAttribute('aria-sort', state);
      const act = (): void => {
        if (c.sortKey !== undefined && opts.onSort) return opts.onSort(c.sortKey);
        local = local && local.i === i ? { i, dir: local.dir === 1 ? -1 : 1 } : { i, dir: c.numeric ? -1 : 1 };
        for (const other of head.children) other.getAttribute('aria-sort') !== null && other.setAttribute('aria-sort', 'none');
        th.setAttribute('aria-sort', local.dir === 1 ? 'ascending' : 'descending');
        draw();
      };
      th.addEventListener('click', act);
      th.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          act();
        }
      });
    }
    head.append(th);
  });
  draw();
  return h('div', { class: 'table-wrap' }, h('table', {}, opts.caption ? h('caption', {}, opts.caption) : null, h('thead', {}, head), tbody));
}

/** Previous/next buttons over opaque cursors (a stack of the cursors that led to each page). */
export function pager(state: { stack: (string | undefined)[] }, next: string | null, go: (cursor: string | undefined) => void): HTMLElement {
  const prev = h('button', { type: 'button', disabled: state.stack.length <= 1 }, '← Previous');
  prev.addEventListener('click', () => {
    state.stack.pop();
    go(state.stack[state.stack.length - 1]);
  });
  const nxt = h('button', { type: 'button', disabled: !next }, 'Next →');
  nxt.addEventListener('click', () => {
    state.stack.push(next!);
    go(next!);
  });
  return h('div', { class: 'pager' }, prev, h('span', {}, `page ${state.stack.length}`), nxt);
}

/** A labelled figure card. */
export function card(label: string, value: Child, testid?: string): HTMLElement {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'value', 'data-testid': testid }, value));
}

const live = new Set<uPlot>();
window.addEventListener('resize', () => {
  for (const u of live) {
    const w = u.root.parentElement?.clientWidth;
    if (w && (u.root as HTMLElement).isConnected) u.setSize({ width: w, height: u.height });
    else live.delete(u);
  }
});

/**
 * A line/bar chart of one series over time (x: Unix ms), drawn with uPlot on a canvas, sized to
 * its container. `tz` renders the axis in that zone.
 */
export function chart(container: HTMLElement, title: string, xsMs: number[], ys: number[], opts: { bars?: boolean; tz?: string; format?: (v: number) => string } = {}): void {
  const styles = getComputedStyle(document.documentElement);
  const stroke = styles.getPropertyValue('--accent').trim() || '#4a6cf7';
  const text = styles.getPropertyValue('--fg').trim() || '#222';
  const grid = styles.getPropertyValue('--grid').trim() || '#8883';
  const box = h('div', { class: 'chart', role: 'img', 'aria-label': `${title}: ${xsMs.length} points` });
  container.append(box);
  const width = Math.max(280, container.clientWidth || 600);
  const axis = { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } };
  const u = new uPlot(
    {
      title,
      width,
      height: 220,
      tzDate: opts.tz ? (ts: number) => uPlot.tzDate(new Date(ts * 1000), opts.tz!) : undefined,
      // Every charted figure is a count or a sum of non-negative amounts: the y axis starts at 0.
      scales: { y: { range: (_u: uPlot, _min: number, max: number): [number, number] => [0, max > 0 ? max * 1.05 : 1] } },
      series: [
        {},
        {
          label: title,
          stroke,
          fill: stroke + '33',
          width: 2,
          paths: opts.bars ? uPlot.paths.bars!({ size: [0.8, 40] }) : undefined,
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : opts.format ? opts.format(v) : String(v)),
        },
      ],
      axes: [axis, { ...axis, size: 70, values: (_u: uPlot, vals: number[]) => vals.map((v) => (opts.format ? opts.format(v) : String(v))) }],
      legend: { show: true },
    },
    [xsMs.map((t) => t / 1000), ys],
    box,
  );
  live.add(u);
}
