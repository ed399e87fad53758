/**
 * Bad input never gets past intake: one variant per Part 2 constraint (each broken alone, each
 * answered 400 with a pointer at the broken field), and property-based variants generated from
 * the served schema itself, plus arbitrary JSON. Every answer is a 4xx problem; nothing is stored.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { intakeDirs } from '../../api/contributions/store.ts';
import { CONTRIBUTIONS, REPORTS, openIntakeApp, validReport, type IntakeApp } from './helpers.ts';
import { fillTemplate } from '../helpers/filled-template.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

let t: IntakeApp;
let template: MusicContributionInput;
let schema: JsonSchema;
beforeAll(async () => {
  t = await openIntakeApp();
  template = fillTemplate((await t.request({ url: `${CONTRIBUTIONS}/template` })).json());
  schema = (await t.request({ url: `${CONTRIBUTIONS}/schema` })).json();
});
afterAll(() => t.close());

type Json = Record<string, unknown>;
type Mutation = (body: Json) => void;

/** Set (or with `undefined`, delete) the value at a JSON Pointer. */
function setAt(body: unknown, pointer: string, value: unknown): void {
  const parts = pointer.slice(1).split('/');
  const last = parts.pop()!;
  let cur = body as Json;
  for (const p of parts) cur = cur[p] as Json;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

const long = (n: number) => 'a'.repeat(n);
const set =
  (pointer: string, value: unknown): Mutation =>
  (b) =>
    setAt(b, pointer, value);

/** [what is broken, mutation, pointer the answer must name] */
const CONTRIBUTION_CASES: Array<[string, Mutation, string]> = [
  ['schemaVersion missing', set('/schemaVersion', undefined), '/schemaVersion'],
  ['schemaVersion not the contract label', set('/schemaVersion', 'archive.music-contribution.v2'), '/schemaVersion'],
  ['operation missing', set('/operation', undefined), '/operation'],
  ['operation not listed', set('/operation', 'remix'), '/operation'],
  ['idempotencyKey missing', set('/idempotencyKey', undefined), '/idempotencyKey'],
  ['idempotencyKey 7 chars', set('/idempotencyKey', 'abcdefg'), '/idempotencyKey'],
  ['idempotencyKey 121 chars', set('/idempotencyKey', long(121)), '/idempotencyKey'],
  ['idempotencyKey starts with "-"', set('/idempotencyKey', '-abcdefgh'), '/idempotencyKey'],
  ['idempotencyKey has a space', set('/idempotencyKey', 'abcd efgh'), '/idempotencyKey'],
  ['idempotencyKey has "/"', set('/idempotencyKey', 'abcd/efgh'), '/idempotencyKey'],
  ['submittedBy missing', set('/submittedBy', undefined), '/submittedBy'],
  ['submittedBy.name missing', set('/submittedBy/name', undefined), '/submittedBy/name'],
  ['submittedBy.name 101', set('/submittedBy/name', long(101)), '/submittedBy/name'],
  ['submittedBy.kind not listed', set('/submittedBy/kind', 'Robot'), '/submittedBy/kind'],
  ['submittedBy.agentName 101', set('/submittedBy/agentName', long(101)), '/submittedBy/agentName'],
  ['submittedBy.agentVersion 81', set('/submittedBy/agentVersion', long(81)), '/submittedBy/agentVersion'],
  ['submittedBy.contact 201', set('/submittedBy/contact', long(201)), '/submittedBy/contact'],
  ['submittedBy unknown property', set('/submittedBy/email', 'x@example.org'), '/submittedBy/email'],
  ['channel.channelKey missing', set('/channel/channelKey', undefined), '/channel/channelKey'],
  ['channel.channelKey 101', set('/channel/channelKey', long(101)), '/channel/channelKey'],
  ['channel.displayName 161', set('/channel/displayName', long(161)), '/channel/displayName'],
  ['channel.audioProfile 121', set('/channel/audioProfile', long(121)), '/channel/audioProfile'],
  ['channel.intendedRole not listed', set('/channel/intendedRole', 'background'), '/channel/intendedRole'],
  ['channel.musicAllowed not boolean', set('/channel/musicAllowed', 'yes'), '/channel/musicAllowed'],
  ['channel.usageNotes 601', set('/channel/usageNotes', long(601)), '/channel/usageNotes'],
  ['channel unknown property', set('/channel/volume', 3), '/channel/volume'],
  ['target.workSlug 161', set('/target/workSlug', long(161)), '/target/workSlug'],
  ['target.assetType 41', set('/target/assetType', long(41)), '/target/assetType'],
  ['target.assetId not an integer', set('/target/assetId', 1.5), '/target/assetId'],
  ['target.assetId beyond int32', set('/target/assetId', 2 ** 31), '/target/assetId'],
  ['target.baseSha256 65', set('/target/baseSha256', long(65)), '/target/baseSha256'],
  ['target unknown property', set('/target/assetKind', 'x'), '/target/assetKind'],
  ['work.title 201', set('/work/title', long(201)), '/work/title'],
  ['work.originalTitle 201', set('/work/originalTitle', long(201)), '/work/originalTitle'],
  ['work.composer 161', set('/work/composer', long(161)), '/work/composer'],
  ['work.period 81', set('/work/period', long(81)), '/work/period'],
  ['work.genre 81', set('/work/genre', long(81)), '/work/genre'],
  ['work.year 41', set('/work/year', long(41)), '/work/year'],
  ['work.workNumber 81', set('/work/workNumber', long(81)), '/work/workNumber'],
  ['work.summary 301', set('/work/summary', long(301)), '/work/summary'],
  ['work unknown property', set('/work/key', 'C major'), '/work/key'],
  ['rights missing', set('/rights', undefined), '/rights'],
  ['rights.compositionStatus missing', set('/rights/compositionStatus', undefined), '/rights/compositionStatus'],
  ['rights.compositionStatus not listed', set('/rights/compositionStatus', 'free'), '/rights/compositionStatus'],
  ['rights.editionStatus not listed', set('/rights/editionStatus', 'free'), '/rights/editionStatus'],
  ['rights.recordingStatus not listed', set('/rights/recordingStatus', 'free'), '/rights/recordingStatus'],
  ['rights.territory missing', set('/rights/territory', undefined), '/rights/territory'],
  ['rights.territory 81', set('/rights/territory', long(81)), '/rights/territory'],
  ['rights.license 161', set('/rights/license', long(161)), '/rights/license'],
  ['rights.attribution 501', set('/rights/attribution', long(501)), '/rights/attribution'],
  ['rights.checkedAtUtc not UTC', set('/rights/checkedAtUtc', '2026-01-01T00:00:00+02:00'), '/rights/checkedAtUtc'],
  ['rights.checkedAtUtc not a date-time', set('/rights/checkedAtUtc', 'yesterday'), '/rights/checkedAtUtc'],
  ['rights.evidenceUrls missing', set('/rights/evidenceUrls', undefined), '/rights/evidenceUrls'],
  ['rights.evidenceUrls empty', set('/rights/evidenceUrls', []), '/rights/evidenceUrls'],
  ['rights.evidenceUrls item not a URI', set('/rights/evidenceUrls/0', 'not a url'), '/rights/evidenceUrls/0'],
  ['rights unknown property', set('/rights/country', 'US'), '/rights/country'],
  ['assets missing', set('/assets', undefined), '/assets'],
  ['assets not an array', set('/assets', {}), '/assets'],
  ['assets[].kind not listed', set('/assets/0/kind', 'pdf'), '/assets/0/kind'],
  ['assets[].title missing', set('/assets/0/title', undefined), '/assets/0/title'],
  ['assets[].title 181', set('/assets/0/title', long(181)), '/assets/0/title'],
  ['assets[].downloadUrl not a URI', set('/assets/0/downloadUrl', 'example.org/file'), '/assets/0/downloadUrl'],
  [
    'assets[].downloadUrl 1001',
    set('/assets/0/downloadUrl', `https://example.org/${long(981)}`),
    '/assets/0/downloadUrl',
  ],
  ['assets[].sourcePageUrl missing', set('/assets/1/sourcePageUrl', undefined), '/assets/1/sourcePageUrl'],
  [
    'assets[].sourcePageUrl 1001',
    set('/assets/1/sourcePageUrl', `https://example.org/${long(981)}`),
    '/assets/1/sourcePageUrl',
  ],
  ['assets[].sha256 63 hex', set('/assets/0/sha256', 'a'.repeat(63)), '/assets/0/sha256'],
  ['assets[].sha256 not hex', set('/assets/0/sha256', 'g'.repeat(64)), '/assets/0/sha256'],
  ['assets[].mediaType 121', set('/assets/0/mediaType', long(121)), '/assets/0/mediaType'],
  ['assets[].rightsStatus missing', set('/assets/0/rightsStatus', undefined), '/assets/0/rightsStatus'],
  ['assets[].rightsStatus 81', set('/assets/0/rightsStatus', long(81)), '/assets/0/rightsStatus'],
  ['assets[].license 161', set('/assets/0/license', long(161)), '/assets/0/license'],
  ['assets[].attribution 501', set('/assets/0/attribution', long(501)), '/assets/0/attribution'],
  ['assets[].reviewState not listed', set('/assets/1/reviewState', 'approved'), '/assets/1/reviewState'],
  ['assets[] unknown property', set('/assets/0/data', 'x'), '/assets/0/data'],
  ['arrangement.title 161', set('/arrangement/title', long(161)), '/arrangement/title'],
  ['arrangement.style 81', set('/arrangement/style', long(81)), '/arrangement/style'],
  ['arrangement.instrumentation 221', set('/arrangement/instrumentation', long(221)), '/arrangement/instrumentation'],
  ['arrangement.duration 21', set('/arrangement/duration', long(21)), '/arrangement/duration'],
  ['arrangement.intendedRole 101', set('/arrangement/intendedRole', long(101)), '/arrangement/intendedRole'],
  [
    'arrangement.renderingProfileSlugs missing',
    set('/arrangement/renderingProfileSlugs', undefined),
    '/arrangement/renderingProfileSlugs',
  ],
  ['arrangement unknown property', set('/arrangement/tempo', 60), '/arrangement/tempo'],
  ['reproducibility.engine 101', set('/reproducibility/engine', long(101)), '/reproducibility/engine'],
  ['reproducibility.model 161', set('/reproducibility/model', long(161)), '/reproducibility/model'],
  ['reproducibility.seed 101', set('/reproducibility/seed', long(101)), '/reproducibility/seed'],
  ['reproducibility.prompt 4001', set('/reproducibility/prompt', long(4001)), '/reproducibility/prompt'],
  [
    'reproducibility.negativePrompt 2001',
    set('/reproducibility/negativePrompt', long(2001)),
    '/reproducibility/negativePrompt',
  ],
  ['reproducibility.command 4001', set('/reproducibility/command', long(4001)), '/reproducibility/command'],
  [
    'reproducibility.manifestUrl not a URI',
    set('/reproducibility/manifestUrl', 'manifest.json'),
    '/reproducibility/manifestUrl',
  ],
  [
    'reproducibility.inputSha256 missing',
    set('/reproducibility/inputSha256', undefined),
    '/reproducibility/inputSha256',
  ],
  ['reproducibility unknown property', set('/reproducibility/gpu', 'x'), '/reproducibility/gpu'],
  ['quality missing', set('/quality', undefined), '/quality'],
  [
    'quality.technicalValidationPassed not boolean',
    set('/quality/technicalValidationPassed', 'yes'),
    '/quality/technicalValidationPassed',
  ],
  [
    'quality.humanListeningApproved not boolean',
    set('/quality/humanListeningApproved', 0),
    '/quality/humanListeningApproved',
  ],
  ['quality.technicalChecks 2001', set('/quality/technicalChecks', long(2001)), '/quality/technicalChecks'],
  ['quality.listeningNotes 2001', set('/quality/listeningNotes', long(2001)), '/quality/listeningNotes'],
  ['quality unknown property', set('/quality/score', 10), '/quality/score'],
  ['changeSummary missing', set('/changeSummary', undefined), '/changeSummary'],
  ['changeSummary 2001', set('/changeSummary', long(2001)), '/changeSummary'],
  ['rationale 2001', set('/rationale', long(2001)), '/rationale'],
  ['unknown top-level property', set('/priority', 'high'), '/priority'],
  // Safety rules
  [
    'downloadUrl over plain HTTP',
    set('/assets/0/downloadUrl', 'http://example.org/a.musicxml'),
    '/assets/0/downloadUrl',
  ],
  ['sourcePageUrl over plain HTTP', set('/assets/0/sourcePageUrl', 'http://example.org/a'), '/assets/0/sourcePageUrl'],
  [
    'evidence URL over plain HTTP',
    set('/rights/evidenceUrls/0', 'http://example.org/evidence'),
    '/rights/evidenceUrls/0',
  ],
  [
    'manifest URL over plain HTTP',
    set('/reproducibility/manifestUrl', 'http://example.org/m.json'),
    '/reproducibility/manifestUrl',
  ],
  [
    'downloadUrl is a data: URL',
    set('/assets/0/downloadUrl', 'data:audio/mpeg;base64,SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4Ljc2LjEwMAAAAAAAAAAAAAAA'),
    '/assets/0/downloadUrl',
  ],
  [
    'base64 payload in a URL',
    set(
      '/assets/0/downloadUrl',
      `https://example.org/u?f=${Buffer.from(Array.from({ length: 150 }, (_, i) => (i * 53) % 256)).toString('base64url')}`,
    ),
    '/assets/0/downloadUrl',
  ],
  [
    'binary content embedded in text',
    set('/quality/listeningNotes', 'clip: data:audio/wav;base64,UklGRiQAAABXQVZF'),
    '/quality/listeningNotes',
  ],
  [
    'listening approval of an asset by an AI-assisted submitter',
    set('/assets/1/reviewState', 'human-listening-approved'),
    '/assets/1/reviewState',
  ],
  [
    'quality.humanListeningApproved by an AI-assisted submitter',
    set('/quality/humanListeningApproved', true),
    '/quality/humanListeningApproved',
  ],
];

const REPORT_CASES: Array<[string, Mutation, string]> = [
  ['workSlug 161', set('/workSlug', long(161)), '/workSlug'],
  ['targetType missing', set('/targetType', undefined), '/targetType'],
  ['targetType 33', set('/targetType', long(33)), '/targetType'],
  ['targetId not an integer', set('/targetId', '7'), '/targetId'],
  ['fieldName missing', set('/fieldName', undefined), '/fieldName'],
  ['fieldName 81', set('/fieldName', long(81)), '/fieldName'],
  ['currentValue 2001', set('/currentValue', long(2001)), '/currentValue'],
  ['proposedValue missing', set('/proposedValue', undefined), '/proposedValue'],
  ['proposedValue 4001', set('/proposedValue', long(4001)), '/proposedValue'],
  ['rationale missing', set('/rationale', undefined), '/rationale'],
  ['rationale 2001', set('/rationale', long(2001)), '/rationale'],
  ['evidenceUrl not a URI', set('/evidenceUrl', 'see the book'), '/evidenceUrl'],
  ['evidenceUrl 1001', set('/evidenceUrl', `https://example.org/${long(981)}`), '/evidenceUrl'],
  ['evidenceUrl is a data: URL', set('/evidenceUrl', 'data:text/html,<p>proof</p>'), '/evidenceUrl'],
  ['reporterName missing', set('/reporterName', undefined), '/reporterName'],
  ['reporterName 101', set('/reporterName', long(101)), '/reporterName'],
  ['reporterKind not listed', set('/reporterKind', 'Bot'), '/reporterKind'],
  ['unknown property', set('/email', 'x@example.org'), '/email'],
];

function storedFiles(): number {
  const dirs = intakeDirs(t.dataDir);
  let n = 0;
  for (const dir of [dirs.contributions, dirs.correctionReports, dirs.idempotency]) {
    if (existsSync(dir))
      n += readdirSync(dir, { recursive: true }).filter((f) => path.basename(String(f)).endsWith('.json')).length;
  }
  return n;
}

async function expectRefused(url: string, body: unknown, pointers: string[] | null): Promise<void> {
  const res = await t.post(url, body);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = res.json() as { type: string; errors: { pointer: string; detail: string }[] };
  expect(problem.type).toBe(`${t.baseUrl}/problems/invalid-body`);
  expect(problem.errors.length).toBeGreaterThan(0);
  if (pointers) expect([...new Set(problem.errors.map((e) => e.pointer))].sort()).toEqual([...pointers].sort());
}

describe('each Part 2 constraint broken alone', () => {
  it(`has ${CONTRIBUTION_CASES.length} contribution and ${REPORT_CASES.length} report variants`, () => {
    expect(CONTRIBUTION_CASES.length + REPORT_CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CONTRIBUTION_CASES)('contribution: %s -> 400 naming the field', async (_name, mutate, pointer) => {
    const before = storedFiles();
    const body = structuredClone(template) as unknown as Json;
    mutate(body);
    await expectRefused(CONTRIBUTIONS, body, [pointer]);
    expect(storedFiles()).toBe(before);
  });

  it.each(REPORT_CASES)('correction report: %s -> 400 naming the field', async (_name, mutate, pointer) => {
    const before = storedFiles();
    const body = validReport() as unknown as Json;
    mutate(body);
    await expectRefused(REPORTS, body, [pointer]);
    expect(storedFiles()).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Generated from the schema: every place a value can break a constraint, and how.

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  maxLength?: number;
  minLength?: number;
  minItems?: number;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  [k: string]: unknown;
}

interface Site {
  pointer: string;
  /** The answer must point here (a dropped field or an unknown one is named itself). */
  expected: string;
  apply: Mutation;
  what: string;
}

function wrongTypeFor(node: JsonSchema): unknown {
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : ['string'];
  if (!types.includes('number') && !types.includes('integer')) return 42;
  return 'not a number';
}

/** Every invalidating mutation the schema allows us to derive, at paths present in `body`. */
function sitesOf(node: JsonSchema, body: unknown, pointer = '', requiredHere = false): Site[] {
  const sites: Site[] = [];
  const at = (what: string, value: unknown, expected = pointer): Site => ({
    pointer,
    expected,
    what,
    apply: set(pointer, value),
  });
  if (pointer !== '') {
    if (requiredHere) sites.push(at('drop required field', undefined));
    sites.push(at('wrong type', wrongTypeFor(node)));
    if (node.maxLength !== undefined) sites.push(at('too long', 'a'.repeat(node.maxLength + 1)));
    if (node.enum) sites.push(at('value not listed', 'not-a-listed-value'));
    if (node.const !== undefined) sites.push(at('wrong constant', 'x'));
    if (node.pattern) sites.push(at('pattern broken', '!'.repeat(Math.max(node.minLength ?? 1, 1))));
    if (node.format === 'uri') sites.push(at('not a URI', 'not a uri'));
    if (node.format === 'date-time') sites.push(at('not a date-time', 'yesterday'));
    if (node.format === 'int32') sites.push(at('beyond int32', 2 ** 31));
    if (node.minItems) sites.push(at('too few items', []));
  }
  if (node.properties && body !== null && typeof body === 'object') {
    if (node.additionalProperties === false)
      sites.push({
        pointer,
        expected: `${pointer}/unexpectedField`,
        what: 'unknown property',
        apply: set(`${pointer}/unexpectedField`, 1),
      });
    for (const [name, child] of Object.entries(node.properties)) {
      const value = (body as Json)[name];
      if (value === undefined) continue;
      sites.push(...sitesOf(child, value, `${pointer}/${name}`, node.required?.includes(name) ?? false));
    }
  }
  if (node.items && Array.isArray(body) && body.length > 0) sites.push(...sitesOf(node.items, body[0], `${pointer}/0`));
  return sites;
}

describe('generated invalid bodies (fast-check)', () => {
  it('derives well over a hundred ways to break the template from the schema', () => {
    expect(sitesOf(schema, template).length).toBeGreaterThan(150);
  });

  it(
    'one mutation -> 400 naming exactly that field; nothing stored',
    async () => {
      const sites = sitesOf(schema, template);
      const before = storedFiles();
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...sites), async (site) => {
          const body = structuredClone(template) as unknown as Json;
          site.apply(body);
          await expectRefused(CONTRIBUTIONS, body, [site.expected]);
        }),
        { numRuns: 250 },
      );
      expect(storedFiles()).toBe(before);
    },
    PROPERTY_BACKSTOP_MS,
  );

  it(
    'several mutations at once -> 400 listing every one of them; nothing stored',
    async () => {
      const sites = sitesOf(schema, template);
      const before = storedFiles();
      // Mutations on unrelated fields: no chosen field may contain another.
      const independent = fc
        .uniqueArray(fc.constantFrom(...sites), { minLength: 2, maxLength: 5, selector: (s) => s.pointer })
        .filter((chosen) =>
          chosen.every((a) =>
            chosen.every((b) => a === b || !(`${b.pointer}/`.startsWith(`${a.pointer}/`) || a.pointer === '')),
          ),
        );
      await fc.assert(
        fc.asyncProperty(independent, async (chosen) => {
          const body = structuredClone(template) as unknown as Json;
          for (const site of chosen) site.apply(body);
          const res = await t.post(CONTRIBUTIONS, body);
          expect(res.statusCode).toBe(400);
          const pointers = new Set((res.json() as { errors: { pointer: string }[] }).errors.map((e) => e.pointer));
          for (const site of chosen) expect(pointers.has(site.expected), `${site.what} at ${site.pointer}`).toBe(true);
        }),
        { numRuns: 150 },
      );
      expect(storedFiles()).toBe(before);
    },
    PROPERTY_BACKSTOP_MS,
  );

  it(
    'arbitrary JSON and arbitrary text -> a 4xx problem, never a 5xx; nothing stored',
    async () => {
      const before = storedFiles();
      const body = fc.oneof(
        fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
        fc.string(),
        fc.dictionary(fc.constantFrom(...Object.keys(template), 'x'), fc.jsonValue()).map((v) => JSON.stringify(v)),
      );
      await fc.assert(
        fc.asyncProperty(body, fc.constantFrom(CONTRIBUTIONS, REPORTS), async (payload, url) => {
          const res = await t.post(url, payload);
          expect(res.statusCode).toBeGreaterThanOrEqual(400);
          expect(res.statusCode).toBeLessThan(500);
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(res.json().status).toBe(res.statusCode);
        }),
        { numRuns: 200 },
      );
      expect(storedFiles()).toBe(before);
    },
    PROPERTY_BACKSTOP_MS,
  );
});
