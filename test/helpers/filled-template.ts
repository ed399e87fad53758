/**
 * The contribution template with every placeholder replaced (the untouched
 * template is refused). Tests that need "a valid contribution" start here; only the
 * placeholders change, every other field stays as the template has it, so a test that mutates
 * one field still sees exactly one error.
 */
import { createHash } from 'node:crypto';
import { placeholderReason } from '../../src/domain/contributions/placeholders.ts';
import { buildContributionTemplate } from '../../src/domain/contributions/template.ts';

type Json = unknown;

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** A real-looking value for the placeholder at `pointer` (deterministic: same template, same body). */
function replacement(pointer: string, value: string): string {
  const last = pointer.split('/').at(-1) ?? '';
  if (/^https?:\/\//i.test(value))
    return `https://files.example.org${new URL(value).pathname.replace(/^\/REPLACE/, '')}`;
  if (/^0{64}$/.test(value)) return digestOf(`filled ${pointer}`);
  if (value.startsWith('2000-01-01')) return '2026-01-01T00:00:00Z';
  if (last === 'idempotencyKey') return value.replace(/^REPLACE-with-a-new-key/, 'filled-template');
  if (last === 'workSlug') return 'satie-gymnopedie-1';
  if (pointer.includes('/renderingProfileSlugs/')) return 'warm-grand-piano';
  if (last === 'license') return 'CC0-1.0';
  if (last === 'territory') return 'US, EU, CA';
  if (last === 'duration') return '3:05';
  if (last === 'contact') return 'e-mail address reviewers can reach: tester@example.org';
  // Free text: the placeholder's own words, without the marker.
  return value.replace(/^REPLACE:\s*/, '').replace(/^REPLACE-/, '') || 'filled';
}

/** A deep copy of `template` with every placeholder replaced. */
export function fillTemplate<T>(template: T): T {
  const walk = (value: Json, pointer: string): Json => {
    if (typeof value === 'string') return placeholderReason(value) ? replacement(pointer, value) : value;
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${pointer}/${i}`));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, `${pointer}/${k}`)]));
    return value;
  };
  return walk(template, '') as T;
}

/** The contribution template for the sample's Gymnopédie No. 1, as the template route would build it. */
export function satieTemplate(): ReturnType<typeof buildContributionTemplate> {
  return buildContributionTemplate({
    slug: 'satie-gymnopedie-1',
    title: 'Gymnopédie No. 1',
    originalTitle: null,
    composer: 'Erik Satie',
    period: null,
    genre: null,
    year: null,
    workNumber: null,
    summary: null,
  });
}
