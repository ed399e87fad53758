/** Rate limits on the two public submission endpoints; reads are never limited. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRIBUTIONS, REPORTS, openIntakeApp, validReport, type IntakeApp } from './helpers.ts';
import { testClock } from '../helpers/app.ts';
import { fillTemplate } from '../helpers/filled-template.ts';

let t: IntakeApp;
// The limits' clock stands still unless the test moves it: a loaded machine that takes seconds
// over the burst refills nothing, and Retry-After is exact.
const clock = testClock();
beforeAll(async () => {
  t = await openIntakeApp({ contributions: '3/60', reports: '2/600' }, {}, clock);
});
afterAll(() => t.close());

describe('rate limits', () => {
  it('refuse a burst over the limit with 429, Retry-After and RateLimit headers; reads still pass', async () => {
    const template = fillTemplate((await t.request({ url: `${CONTRIBUTIONS}/template` })).json());
    const answers = [];
    // Invalid bodies count too: a client cannot hammer the validator for free.
    answers.push(await t.post(CONTRIBUTIONS, { ...template, idempotencyKey: 'x' }));
    for (let i = 0; i < 4; i++)
      answers.push(await t.post(CONTRIBUTIONS, { ...template, idempotencyKey: `burst-key-${i}` }));
    expect(answers.map((a) => a.statusCode)).toEqual([400, 202, 202, 429, 429]);
    expect(answers.map((a) => a.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
    for (const a of answers) {
      expect(a.headers['ratelimit-limit']).toBe('3');
      expect(a.headers['ratelimit-policy']).toBe('3;w=60');
      expect(Number(a.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const limited = answers[3]!;
    expect(limited.json()).toMatchObject({ type: `${t.baseUrl}/problems/rate-limited`, status: 429 });
    // A bucket of 3 refilled at 3 a minute: one token in 20 s.
    expect(limited.headers['retry-after']).toBe('20');
    // Time moves: 5 s later the wait is 15 s; at 20 s one more passes, then the next is limited again.
    clock.advance(5_000);
    const later = await t.post(CONTRIBUTIONS, { ...template, idempotencyKey: 'burst-key-later' });
    expect(later.statusCode).toBe(429);
    expect(later.headers['retry-after']).toBe('15');
    clock.advance(15_000);
    const refilled = await t.post(CONTRIBUTIONS, { ...template, idempotencyKey: 'burst-key-refilled' });
    expect(refilled.statusCode).toBe(202);
    expect(refilled.headers['ratelimit-remaining']).toBe('0');
    expect((await t.post(CONTRIBUTIONS, { ...template, idempotencyKey: 'burst-key-next' })).statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);

    // Reads are not limited, and the stored contributions are still there.
    const code = answers[1]!.json().data.trackingCode;
    for (let i = 0; i < 30; i++) expect((await t.request({ url: `${CONTRIBUTIONS}/${code}` })).statusCode).toBe(200);
    expect((await t.request({ url: `${CONTRIBUTIONS}/schema` })).statusCode).toBe(200);
    expect((await t.request({ url: '/api/v1/works' })).headers['ratelimit-limit']).toBeUndefined();
  });

  it('limit correction reports on their own allowance', async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await t.post(REPORTS, validReport())).statusCode);
    expect(codes).toEqual([202, 202, 429]);
  });
});
