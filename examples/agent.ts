/**
 * An agent's find-or-prepare loop with the typed client (client/): resolve music for a channel;
 * when nothing ready can be reused, take the contribution template, fill it, submit it once per
 * idempotency key, and track the review.
 *
 *   ARCHIVE_BASE_URL=http://localhost:4321 node examples/agent.ts [work-slug]
 *
 * It submits a real contribution to the archive it is pointed at: point it at your own local
 * archive (`npm start`). A real agent replaces every placeholder in the template (text starting
 * "REPLACE:", the key starting "REPLACE-", https://example.invalid/ URLs, all-zero digests, the
 * 2000-01-01 timestamp) with verified facts before submitting; this example only sets a fresh
 * idempotency key and its change summary. Runs in the test suite (test/client/client.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { createArchiveClient, type Problem } from '@pdma/client';

function fail(step: string, problem: Problem | undefined): never {
  const fields = (problem?.errors ?? []).map((e) => ('pointer' in e ? e.pointer : e.parameter)).join(', ');
  throw new Error(`${step} was refused (${problem?.status ?? '?'}): ${problem?.detail ?? 'no detail'}${fields ? ` [${fields}]` : ''}`);
}

export async function runAgent(baseUrl: string, workSlug: string, log: (line: string) => void = console.log) {
  const archive = createArchiveClient(baseUrl);

  // 1. Resolve: reuse a ready canonical asset when there is one.
  const resolved = await archive.POST('/api/v1/music/resolve', {
    body: { workSlug, channel: { channelKey: 'example-documentary', intendedRole: 'music-bed', narrationPresent: true }, requirements: { requiredFormats: ['wav'] } },
  });
  if (!resolved.data) fail('resolve', resolved.error as Problem);
  const verdict = resolved.data.data.verdict;
  log(`resolve ${workSlug}: ${verdict}`);
  if (verdict === 'reuse') {
    const best = resolved.data.data.candidates[0];
    log(`reuse ${best?.workSlug ?? workSlug}: nothing to contribute`);
    return { verdict, trackingCode: null, status: null };
  }

  // 2. Template: a complete contribution with placeholders, around a real work of the catalog.
  const template = await archive.GET('/api/v1/music/contributions/template');
  if (!template.data) fail('template', template.error as Problem);
  const contribution = { ...template.data, idempotencyKey: `example-agent-${randomUUID()}`, changeSummary: `Example agent: ${verdict} for ${workSlug}.` };

  // 3. Submit once per idempotency key; a retry with the same key and content returns the same code.
  const submitted = await archive.POST('/api/v1/music/contributions', { body: contribution });
  if (!submitted.data) fail('submit', submitted.error as Problem);
  const trackingCode = submitted.data.data.trackingCode;
  log(`submitted: tracking code ${trackingCode}`);

  // 4. Track: reuse the asset only once the status is "applied" and it appears in the work record.
  const tracked = await archive.GET('/api/v1/music/contributions/{trackingCode}', { params: { path: { trackingCode } } });
  if (!tracked.data) fail('track', tracked.error as Problem);
  log(`status: ${tracked.data.data.status}`);
  return { verdict, trackingCode, status: tracked.data.data.status };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const baseUrl = process.env.ARCHIVE_BASE_URL?.trim() || 'http://localhost:4321';
  runAgent(baseUrl, process.argv[2] ?? 'satie-gymnopedie-1')
    .then((result) => console.log(JSON.stringify(result)))
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    });
}
