// Elements built in code, never from HTML strings: text is always text, so
// nothing a run holds can become markup.
type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | number | undefined | null | false;

function apply(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

const SVG = 'http://www.w3.org/2000/svg';

export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** A link inside the page: the router takes its clicks. */
export const link = (href: string, ...children: Child[]) => h('a', { href, 'data-nav': true }, ...children);

export function replace(target: Element, ...children: Child[]): void {
  target.replaceChildren();
  append(target, children);
}
