/**
 * The score page's pages beyond the first (src/components/ScorePages.astro): the page list in the
 * HTML (a link per page, with every page's size) becomes one figure per page whose image loads
 * when the reader comes near it (`loading="lazy"`: the browser fetches it as it approaches the
 * viewport; the reserved size keeps the layout still). A bar above the pages says "Page N of M"
 * for the page at the top of the window, and offers previous, next and a page number. Each layout
 * (the 840 px pages, the phone engraving) has its own bar; the one CSS hides is left alone until
 * the window changes size.
 */

interface Layout {
  section: HTMLElement;
  figures: HTMLElement[];
  status: HTMLElement;
  pager: HTMLElement;
  /** The page the label names. */
  page: number;
  /** Set by explicit paging: the label stays on that page until the reader scrolls by hand. */
  pinned: boolean;
}

function label(section: HTMLElement, n: number, total: number): string {
  return `Page ${n} of ${total}${section.dataset.phone !== undefined ? ' (phone layout)' : ''}`;
}

function setUp(section: HTMLElement): Layout | null {
  const flow = section.querySelector<HTMLElement>('[data-score-flow]');
  const index = section.querySelector<HTMLElement>('[data-score-index]');
  const pager = section.querySelector<HTMLElement>('[data-score-pager]');
  const status = section.querySelector<HTMLElement>('[data-score-status]');
  if (!flow || !index || !pager || !status) return null;
  const links = [...index.querySelectorAll<HTMLAnchorElement>('a[href]')];
  const sizes = (index.dataset.sizes ?? '').split(',');
  const prefix = section.dataset.idPrefix ?? 'page-';
  const title = section.dataset.title ?? '';
  const total = links.length;
  for (let n = flow.children.length + 1; n <= total; n++) {
    const [w = '0', h = '0'] = (sizes[n - 1] ?? '').split('x');
    const figure = document.createElement('figure');
    figure.className = 'score';
    figure.id = `${prefix}${n}`;
    figure.tabIndex = -1;
    const img = document.createElement('img');
    img.width = Number(w);
    img.height = Number(h);
    img.loading = 'lazy';
    img.decoding = 'async';
    img.alt = `${label(section, n, total)}: ${title}`;
    img.src = links[n - 1]!.href;
    const caption = document.createElement('figcaption');
    caption.textContent = label(section, n, total);
    figure.append(img, caption);
    flow.append(figure);
  }
  pager.hidden = false;
  const layout: Layout = {
    section,
    figures: [...flow.querySelectorAll<HTMLElement>('figure.score')],
    status,
    pager,
    page: 1,
    pinned: false,
  };

  const goTo = (n: number) => {
    const page = Math.min(Math.max(1, Math.round(n)), layout.figures.length);
    const figure = layout.figures[page - 1]!;
    // Below the sticky bar, which would otherwise cover the top of the page.
    const top = figure.getBoundingClientRect().top + window.scrollY - pager.getBoundingClientRect().height - 8;
    window.scrollTo({ top: Math.max(0, top), behavior: 'instant' });
    figure.focus({ preventScroll: true });
    layout.pinned = true;
    show(layout, page);
  };
  for (const button of pager.querySelectorAll<HTMLButtonElement>('[data-score-step]')) {
    button.addEventListener('click', () => goTo(current(layout) + Number(button.dataset.scoreStep)));
  }
  const form = pager.querySelector<HTMLFormElement>('[data-score-goto]');
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = form.querySelector<HTMLInputElement>('input');
    if (input && input.value !== '') goTo(Number(input.value));
  });
  links.forEach((link, i) =>
    link.addEventListener('click', (event) => {
      event.preventDefault();
      goTo(i + 1);
    }),
  );
  const hash = /^#(?:phone-)?page-(\d+)$/.exec(location.hash);
  if (hash && location.hash.startsWith(`#${prefix}`) && isShown(layout)) goTo(Number(hash[1]));
  return layout;
}

function isShown(layout: Layout): boolean {
  return layout.section.offsetParent !== null;
}

function show(layout: Layout, n: number): void {
  layout.page = n;
  // The bar names the layout beside the number (ScorePages.astro), so the number stands alone here.
  const text = `Page ${n} of ${layout.figures.length}`;
  if (layout.status.textContent !== text) layout.status.textContent = text;
}

/**
 * The page at the top of the window: the last whose top is above the bar's bottom edge (a binary
 * search: the figures are in page order). At the end of the document, the last page whose top is
 * in view, since the last pages can never reach the top.
 */
function current(layout: Layout): number {
  if (layout.pinned) return layout.page;
  const figures = layout.figures;
  const line = layout.pager.getBoundingClientRect().bottom + 16;
  let lo = 0;
  let hi = figures.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (figures[mid]!.getBoundingClientRect().top <= line) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const atEnd = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
  if (atEnd) {
    while (found + 1 < figures.length && figures[found + 1]!.getBoundingClientRect().top < window.innerHeight) found++;
  }
  return found + 1;
}

const layouts = [...document.querySelectorAll<HTMLElement>('[data-score-pages]')]
  .map(setUp)
  .filter((l): l is Layout => l !== null);

let scheduled = false;
const update = () => {
  scheduled = false;
  for (const layout of layouts) if (isShown(layout) && !layout.pinned) show(layout, current(layout));
};
window.addEventListener(
  'scroll',
  () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(update);
  },
  { passive: true },
);
window.addEventListener('resize', update);
// Scrolling by hand (wheel, touch, keys, the scroll bar) lets the label follow the window again.
const unpin = (event: Event) => {
  if (event.type === 'keydown' && (event.target as HTMLElement | null)?.closest?.('input, button')) return;
  for (const layout of layouts) layout.pinned = false;
};
for (const type of ['wheel', 'touchstart', 'keydown', 'pointerdown'])
  window.addEventListener(type, unpin, { passive: true, capture: true });
update();
