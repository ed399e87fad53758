/** The pure part of publish:static: targets, served paths and the upload/delete plan. */
import { describe, expect, it } from 'vitest';
import {
  parseS3Url,
  planPublish,
  servedPaths,
  type PublishManifest,
  type PublishObject,
} from '../../src/domain/static-publish.ts';

const obj = (key: string, md5 = 'a'.repeat(32), overrides: Partial<PublishObject> = {}): PublishObject => ({
  key,
  md5,
  contentType: 'application/json',
  cacheControl: 'public, max-age=60',
  redirect: null,
  size: 1,
  ...overrides,
});
const manifestOf = (objects: PublishObject[]): PublishManifest => ({
  publishedAtUtc: '2026-11-23T00:00:00.000Z',
  buildGeneratedAtUtc: '2026-11-23T00:00:00.000Z',
  objects: Object.fromEntries(
    objects.map((o) => [
      o.key,
      { md5: o.md5, contentType: o.contentType, cacheControl: o.cacheControl, redirect: o.redirect },
    ]),
  ),
});

describe('parseS3Url', () => {
  it('splits bucket and prefix and refuses anything else', () => {
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/site/v1/')).toEqual({ bucket: 'my-bucket', prefix: 'site/v1/' });
    for (const bad of ['http://x/y', 's3://ab', 's3://Upper/x', 's3://ok-bucket/../x', 's3:/bucket'])
      expect(() => parseS3Url(bad), bad).toThrow(/--to|prefix/);
  });
});

describe('servedPaths', () => {
  it('adds the extension-less record paths and page folders, as nginx.conf maps them', () => {
    expect(servedPaths('api/v1/works/a/index.json')).toEqual([
      '/api/v1/works/a/index.json',
      '/api/v1/works/a',
      '/api/v1/works/a/',
    ]);
    expect(servedPaths('api/v1/index.json')).toEqual(['/api/v1/index.json', '/api/v1', '/api/v1/']);
    expect(servedPaths('works/a/index.html')).toEqual(['/works/a/index.html', '/works/a', '/works/a/']);
    expect(servedPaths('index.html')).toEqual(['/index.html']);
    expect(servedPaths('other/index.json')).toEqual(['/other/index.json']);
    expect(servedPaths('_astro/x.css')).toEqual(['/_astro/x.css']);
  });
});

describe('planPublish', () => {
  it('uploads what is missing or differs in bytes or headers, and deletes only unwanted keys under the prefix', () => {
    const same = obj('p/same.json');
    const bytes = obj('p/bytes.json', 'b'.repeat(32));
    const headers = obj('p/headers.json', 'c'.repeat(32), { cacheControl: 'public, max-age=31536000, immutable' });
    const fresh = obj('p/new.css', 'd'.repeat(32), { contentType: 'text/css; charset=utf-8' });
    const page = obj('p/x/index.html', 'e'.repeat(32), { contentType: 'text/html; charset=utf-8' });
    const previous = manifestOf([
      same,
      obj('p/bytes.json', 'f'.repeat(32)),
      obj('p/headers.json', 'c'.repeat(32)),
      page,
    ]);
    const listed = [
      { key: 'p/same.json', etag: same.md5 },
      { key: 'p/bytes.json', etag: 'f'.repeat(32) },
      { key: 'p/headers.json', etag: headers.md5 },
      { key: 'p/x/index.html', etag: 'e'.repeat(32) },
      { key: 'p/gone.json', etag: '0'.repeat(32) },
      { key: 'p/.archive-publish.json', etag: '1'.repeat(32) },
    ];
    const plan = planPublish([page, same, bytes, headers, fresh], listed, previous, ['p/.archive-publish.json']);
    expect(plan.upload.map((o) => o.key)).toEqual(['p/new.css', 'p/bytes.json', 'p/headers.json']);
    expect(plan.unchanged).toBe(2);
    expect(plan.remove).toEqual(['p/gone.json']);
  });

  it('re-uploads everything when there is no manifest (headers unknown)', () => {
    const a = obj('a.json');
    expect(planPublish([a], [{ key: 'a.json', etag: a.md5 }], null, []).upload).toEqual([a]);
  });
});
