/** X-Forwarded-For counts only from ARCHIVE_TRUSTED_PROXIES; spoofed headers from anyone else are ignored. */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseTrustedProxies } from '../../api/config.ts';
import { REPORTS, openIntakeApp, validReport, type IntakeApp } from '../contributions/helpers.ts';

let t: IntakeApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function codesFromForwarded(env: Record<string, string>): Promise<number[]> {
  t = await openIntakeApp({ reports: '1/600' }, env);
  const codes = [];
  for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.2']) {
    const res = await t.app.inject({
      method: 'POST',
      url: REPORTS,
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      payload: JSON.stringify(validReport()),
    });
    codes.push(res.statusCode);
  }
  return codes;
}

describe('trusted proxies', () => {
  it('use the forwarded address for rate limits when the peer is a trusted proxy', async () => {
    expect(await codesFromForwarded({ ARCHIVE_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' })).toEqual([202, 202, 429]);
  });

  it('ignore X-Forwarded-For from a peer that is not trusted (one allowance for the peer)', async () => {
    expect(await codesFromForwarded({})).toEqual([202, 429, 429]);
    await t!.close();
    t = undefined;
    expect(await codesFromForwarded({ ARCHIVE_TRUSTED_PROXIES: '192.0.2.0/24' })).toEqual([202, 429, 429]);
  });

  it('refuse a setting that is not an address or CIDR, naming the variable', () => {
    expect(parseTrustedProxies(' 127.0.0.1 , ::1, 10.0.0.0/8 ')).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    for (const bad of ['localhost', '10.0.0.0/33', '1.2.3.4/8/9', '::1/129']) {
      expect(() => parseTrustedProxies(bad)).toThrow(ConfigError);
      expect(() => parseTrustedProxies(bad)).toThrow(/ARCHIVE_TRUSTED_PROXIES/);
    }
  });
});
