/**
 * An agent's find-or-prepare loop with the typed client (client/): resolve music for a channel;
 * when nothing ready can be reused, take the contribution template, fill it, submit it once per
 * idempotency key, and track the review.
 *
 *   ARCHIVE_BASE_URL=http://localhost:4321 node examples/agent.ts [work-slug]
 *
 * It submits a real contribution to the archive it is pointed at: point it at your own local
 * archive (`npm start`). The archive refuses a contribution that still carries a placeholder of
 * the template (text starting "REPLACE:", the key starting "REPLACE-", https://example.invalid/
 * URLs, all-zero digests, the 2000-01-01 timestamp), so the agent fills every field from its own
 * facts (AGENT_FACTS below: who it is and the files it made, at its HTTPS URLs with their
 * digests) and from the resolve answer's missing[] (operation and target). The example facts
 * are illustrative: a real agent states its own. Runs in the test suite (test/client/client.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { createArchiveClient, isFullResolve, type Problem } from '@pdma/client';

/** What the agent knows about itself and the files it made (illustrative values). */
export const AGENT_FACTS = {
  submitter: {
    name: 'Example Agent Operator',
    kind: 'AiAssisted' as const,
    agentName: 'examples/agent.ts',
    agentVersion: '1.0.0',
    contact: 'operator@example.org',
  },
  channel: {
    channelKey: 'example-documentary',
    displayName: 'Example documentary',
    audioProfile: 'stereo 48 kHz, -16 LUFS',
    usageNotes: 'Bed under narration.',
  },
  rights: {
    territory: 'US, EU, CA',
    license: 'CC0-1.0',
    attribution: null,
    checkedAtUtc: '2026-01-01T00:00:00Z',
    evidenceUrls: ['https://en.wikipedia.org/wiki/Gymnop%C3%A9dies'],
  },
  files: {
    musicxml: {
      title: 'Example arrangement score',
      url: 'https://files.example.org/agent/arrangement.musicxml',
      sha256: 'a'.repeat(64),
    },
    mp3: {
      title: 'Example arrangement recording',
      url: 'https://files.example.org/agent/arrangement.mp3',
      sha256: 'b'.repeat(64),
    },
  } as Record<string, { title: string; url: string; sha256: string }>,
  sourcePageUrl: 'https://files.example.org/agent/',
  arrangement: {
    title: 'Example calm piano arrangement',
    style: 'solo piano, calm',
    instrumentation: 'piano',
    duration: '3:05',
  },
  reproducibility: {
    engine: 'example-renderer 1.0',
    seed: '42',
    command: 'example-renderer --seed 42 arrangement.musicxml',
    manifestUrl: 'https://files.example.org/agent/manifest.json',
  },
};

function fail(step: string, problem: Problem | undefined): never {
  const fields = (problem?.errors ?? []).map((e) => ('pointer' in e ? e.pointer : e.parameter)).join(', ');
  throw new Error(
    `${step} was refused (${problem?.status ?? '?'}): ${problem?.detail ?? 'no detail'}${fields ? ` [${fields}]` : ''}`,
  );
}

export async function runAgent(baseUrl: string, workSlug: string, log: (line: string) => void = console.log) {
  const archive = createArchiveClient(baseUrl);

  // 1. Resolve: reuse a ready canonical asset when there is one.
  const resolved = await archive.POST('/api/v1/music/resolve', {
    body: {
      workSlug,
      channel: { channelKey: 'example-documentary', intendedRole: 'music-bed', narrationPresent: true },
      requirements: { requiredFormats: ['wav'] },
    },
  });
  if (!resolved.data) fail('resolve', resolved.error as Problem);
  // The full answer is the default (no Prefer: return=minimal).
  const answer = resolved.data.data;
  if (!isFullResolve(answer)) throw new Error('resolve: expected the full answer');
  const verdict = answer.verdict;
  log(`resolve ${workSlug}: ${verdict}`);
  if (verdict === 'reuse') {
    const best = answer.candidates[0];
    log(`reuse ${best?.workSlug ?? workSlug}: nothing to contribute`);
    return { verdict, trackingCode: null, status: null };
  }

  // 2. Template: a complete contribution with placeholders, around a real work of the catalog.
  const template = await archive.GET('/api/v1/music/contributions/template');
  if (!template.data) fail('template', template.error as Problem);
  // Fill every placeholder from the agent's facts and missing[] (operation and target).
  const t = template.data;
  const f = AGENT_FACTS;
  const first = answer.missing.find((m) => m.operation !== null);
  const contribution = {
    ...t,
    operation: first?.operation ?? t.operation,
    idempotencyKey: `example-agent-${randomUUID()}`,
    submittedBy: f.submitter,
    channel: t.channel ? { ...t.channel, ...f.channel } : null,
    target: { ...t.target, workSlug: first?.workSlug ?? workSlug },
    rights: { ...t.rights, ...f.rights },
    assets: t.assets.map((a) => {
      const file = f.files[a.kind];
      return file
        ? {
            ...a,
            title: file.title,
            downloadUrl: file.url,
            sha256: file.sha256,
            sourcePageUrl: f.sourcePageUrl,
            license: f.rights.license,
          }
        : { ...a, sourcePageUrl: f.sourcePageUrl, license: f.rights.license };
    }),
    arrangement: t.arrangement ? { ...t.arrangement, ...f.arrangement } : null,
    reproducibility: t.reproducibility
      ? { ...t.reproducibility, ...f.reproducibility, inputSha256: [f.files.musicxml!.sha256] }
      : null,
    quality: { ...t.quality, technicalChecks: null },
    changeSummary:
      `Example agent: ${verdict} for ${workSlug}; ${first?.detail ?? 'an arrangement for the channel'}`.slice(0, 2000),
    rationale: `Resolve answered ${verdict}: ${answer.summary}`.slice(0, 2000),
  };

  // 3. Submit once per idempotency key; a retry with the same key and content returns the same code.
  const submitted = await archive.POST('/api/v1/music/contributions', { body: contribution });
  if (!submitted.data) fail('submit', submitted.error as Problem);
  const trackingCode = submitted.data.data.trackingCode;
  log(`submitted: tracking code ${trackingCode}`);

  // 4. Track: reuse the asset only once the status is "applied" and it appears in the work record.
  const tracked = await archive.GET('/api/v1/music/contributions/{trackingCode}', {
    params: { path: { trackingCode } },
  });
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
