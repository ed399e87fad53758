/**
 * Every item of a list passes a check, and the list is not empty. The `every` form wrapped in an
 * expect passes on an empty list, so a test that meant "each of these" would pass with none of
 * them (test/unit/test-patterns.test.ts refuses that form). A failure names the first item that
 * fails.
 */
import { expect } from 'vitest';

export function expectEach<T>(items: readonly T[], check: (item: T, index: number) => unknown): void {
  expect(items.length, 'the list to check is empty').toBeGreaterThan(0);
  const bad = items.findIndex((item, i) => !check(item, i));
  expect(bad, bad < 0 ? '' : `item ${bad} fails the check: ${JSON.stringify(items[bad])?.slice(0, 500)}`).toBe(-1);
}
