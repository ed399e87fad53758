/** The OpenAPI document covers intake: every path, every status answered, and the schemas the server validates with. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRIBUTIONS_COMPONENTS, CONTRIBUTIONS_OPERATIONS } from '../../src/openapi/contributions.ts';
import { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { CorrectionReportInput } from '../../src/schemas/correction.ts';
import { openIntakeApp, type IntakeApp } from './helpers.ts';

type Op = {
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, unknown> };
};
let t: IntakeApp;
let paths: Record<string, Record<string, Op>>;
beforeAll(async () => {
  t = await openIntakeApp();
  paths = (await t.request({ url: '/api/v1/openapi.json' })).json().paths;
});
afterAll(() => t.close());

const EXPECTED: Array<[string, string, string[]]> = [
  ['get', '/api/v1/music/contributions/schema', ['200', '304']],
  ['get', '/api/v1/music/contributions/template', ['200', '304']],
  ['post', '/api/v1/music/contributions', ['202', '400', '413', '415', '422', '429', '500']],
  ['get', '/api/v1/music/contributions/{trackingCode}', ['200', '304', '404']],
  ['post', '/api/v1/correction-reports', ['202', '400', '413', '415', '429', '500']],
  ['get', '/api/v1/correction-reports/{trackingCode}', ['200', '304', '404']],
];

describe('OpenAPI coverage of intake', () => {
  it.each(EXPECTED)('%s %s declares %j', (method, path, statuses) => {
    const op = paths[path]?.[method];
    expect(op, `${method} ${path}`).toBeDefined();
    for (const status of statuses) expect(Object.keys(op!.responses), `${method} ${path}`).toContain(status);
    for (const [status, r] of Object.entries(op!.responses)) {
      if (Number(status) >= 400)
        expect(Object.keys(r.content ?? {}), `${path} ${status}`).toEqual(['application/problem+json']);
    }
  });

  it('documents the schema endpoint as application/schema+json and the rate-limit headers of the POSTs', () => {
    expect(Object.keys(paths['/api/v1/music/contributions/schema']!.get!.responses['200']!.content!)).toEqual([
      'application/schema+json',
    ]);
    for (const path of ['/api/v1/music/contributions', '/api/v1/correction-reports']) {
      const post = paths[path]!.post!;
      expect(Object.keys(post.responses['202']!.headers ?? {})).toEqual(
        expect.arrayContaining(['Location', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
      expect(Object.keys(post.responses['400']!.headers ?? {})).toContain('RateLimit-Remaining');
    }
  });

  it('describes request bodies with the very schemas the server validates with', () => {
    expect(CONTRIBUTIONS_COMPONENTS.MusicContributionInput).toBe(MusicContributionInput);
    expect(CONTRIBUTIONS_COMPONENTS.CorrectionReportInput).toBe(CorrectionReportInput);
    const bodies = CONTRIBUTIONS_OPERATIONS.filter((op) => op.method === 'post').map((op) => [
      op.path,
      op.requestBody?.schema,
      op.requestBody?.contentTypes,
    ]);
    expect(bodies).toEqual([
      [
        '/api/v1/music/contributions',
        { $ref: '#/components/schemas/MusicContributionInput' },
        ['application/json', 'text/json', 'application/*+json'],
      ],
      [
        '/api/v1/correction-reports',
        { $ref: '#/components/schemas/CorrectionReportInput' },
        ['application/json', 'text/json', 'application/*+json'],
      ],
    ]);
  });

  it('the served document declares both request bodies under every JSON media type', () => {
    for (const [path, name] of [
      ['/api/v1/music/contributions', 'MusicContributionInput'],
      ['/api/v1/correction-reports', 'CorrectionReportInput'],
    ] as const) {
      const content = paths[path]!.post!.requestBody!.content as Record<string, { schema: unknown }>;
      expect(Object.keys(content)).toEqual(['application/json', 'text/json', 'application/*+json']);
      for (const media of Object.values(content))
        expect(media.schema).toEqual({ $ref: `#/components/schemas/${name}` });
    }
  });
});
