/** A few DOM helpers: elements are built in code (no HTML strings, no inline style). */

type Child = Node | string | null | undefined | false;

/** A new element with attributes (`class`, `aria-*`, …) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, string | number | boolean> = {}, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

/** Append children, skipping empty ones (text is added as text, never as HTML). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** The element with `id`; a missing one is a bug in index.html. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** Replace every child of `parent`. */
export function fill(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}
