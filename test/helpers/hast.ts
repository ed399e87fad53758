/** Reading a hast tree (what remark-rehype makes of Markdown) in tests. */

export interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** Every element of a hast tree, in document order. */
export function elements(node: HastNode, out: HastNode[] = []): HastNode[] {
  if (node.type === 'element') out.push(node);
  for (const c of node.children ?? []) elements(c, out);
  return out;
}

/** The text of a node and everything below it. */
export const textOf = (node: HastNode): string =>
  node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join('');
