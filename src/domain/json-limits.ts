/**
 * Bounds on untrusted JSON, checked on the raw text before anything walks the parsed value:
 * a nesting depth limit (so no recursive walk can overflow the stack) and a refusal of the
 * prototype keys `__proto__`, `constructor` and `prototype` (each named by its JSON Pointer).
 * Both are iterative: they never recurse over the input.
 */

/** The deepest nesting of arrays and objects any request body may have. */
export const MAX_JSON_DEPTH = 64;

export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * True when `text` nests arrays/objects deeper than `limit`. Brackets inside strings do not count.
 * Works on any text (valid JSON or not) in one pass.
 */
export function exceedsJsonDepth(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON Pointers of every prototype key in a parsed value (iterative, visits each node once). */
export function prototypeKeyPointers(value: unknown, max = 20): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0 && found.length < max) {
    const [node, pointer] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${pointer}/${i}`]);
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = `${pointer}/${escapePointer(key)}`;
      if (PROTOTYPE_KEYS.has(key)) found.push(child);
      else stack.push([(node as Record<string, unknown>)[key], child]);
    }
  }
  return found;
}
