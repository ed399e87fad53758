/**
 * The agent's whole loop over HTTP, once per intendedRole. Resolve says
 * `prepare`; a contribution built only from the served template, the resolve answer's missing[]
 * and the agent's own facts (its request and the files it made) is accepted, reviewed with
 * listening approval by a labeled admin key, and applied; the same request then says `reuse` with
 * that contribution's arrangement first. No record is edited by hand.
 *
 * Also here (same archive): the actor of every review step is the admin key's label (git log,
 * tracking history, admin view); listening approval with an unlabeled key is refused.
 */
import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../api/site/content-repo.ts';
import { MUSIC_ROLES, type MusicRole } from '../../src/schemas/common.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { openReviewHarness, sha256, UNLABELED_ADMIN_KEY, type ReviewHarness } from './harness.ts';

const WORK_DIR = path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1');
const MUSICXML = readFileSync(path.join(WORK_DIR, 'gymnopedie-1-ambient-piano.musicxml'));
/** The same score as compressed MusicXML (.mxl): a zip with META-INF/container.xml naming it. */
const MXL = Buffer.from(
  zipSync({
    'META-INF/container.xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><container><rootfiles><rootfile full-path="score.musicxml" media-type="application/vnd.recordare.musicxml+xml"/></rootfiles></container>',
    ),
    'score.musicxml': new Uint8Array(MUSICXML),
  }),
);
const FILES: Record<string, Buffer> = {
  '/made/arrangement.musicxml': MUSICXML,
  '/made/arrangement.mxl': MXL,
  '/made/arrangement.mp3': readFileSync(path.join(WORK_DIR, 'gymnopedie-1-ambient-piano.mp3')),
};
/** The short-form agent made its score as .mxl (requiredFormats "musicxml" is satisfied by mxl). */
const MXL_ROLE: MusicRole = 'short-form';
/** The agent's own facts about the files it made (the MP3 is 19.2 s long). */
const MADE = {
  durationSeconds: 19,
  duration: '0:19',
  musicxml: '/made/arrangement.musicxml',
  mp3: '/made/arrangement.mp3',
};
/** One mood per role that no sample arrangement declares, so each journey starts at prepare. */
// Words the vocabulary does not hold (GET /api/v1/music/vocabulary): requirement words are
// matched by meaning, so a synonym of a term ("hazy" -> dreamy, "drowsy" -> sleepy, "expectant"
// -> hopeful) would find music the catalog already has instead of asking for a contribution.
const MOODS: Record<MusicRole, string> = {
  'music-bed': 'misty',
  'music-lead': 'triumphant',
  'music-ambient': 'smoky',
  'music-sleep-lead': 'foggy',
  intro: 'vaporous',
  outro: 'valedictory',
  'short-form': 'perky',
};
const NARRATED = new Set<MusicRole>(['music-bed', 'music-ambient']);

let h: ReviewHarness;
beforeAll(async () => {
  h = await openReviewHarness(FILES);
});
afterAll(() => h?.close());

function requestFor(role: MusicRole) {
  return {
    title: 'Gymnopedie No. 1',
    composer: 'Erik Satie',
    channel: {
      channelKey: `journey-${role}`,
      intendedRole: role,
      ...(NARRATED.has(role) ? { narrationPresent: true } : {}),
    },
    requirements: {
      requiredFormats: ['mp3', 'musicxml'],
      targetDurationSeconds: MADE.durationSeconds,
      mood: MOODS[role],
    },
  };
}

async function resolve(role: MusicRole) {
  const res = await h.post('/api/v1/music/resolve', requestFor(role), null);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

interface Missing {
  what: string;
  operation: MusicContributionInput['operation'] | null;
  workSlug: string | null;
  arrangementId: number | null;
}

/**
 * What an agent does with the template: keep its structure, take operation and target from the
 * first missing[] item a contribution can supply, and fill every placeholder from its own
 * request and files. Nothing else is invented.
 */
function contributionFrom(
  template: MusicContributionInput,
  missing: Missing[],
  role: MusicRole,
): MusicContributionInput {
  const step = missing.find((m) => m.operation !== null)!;
  const request = requestFor(role);
  const c = structuredClone(template);
  const mxl = role === MXL_ROLE;
  const file = (kind: string) => (kind === 'mp3' ? MADE.mp3 : mxl ? '/made/arrangement.mxl' : MADE.musicxml);
  c.operation = step.operation!;
  c.idempotencyKey = `journey-${role}-1`;
  c.submittedBy = {
    name: 'Journey Agent Operator',
    kind: 'AiAssisted',
    agentName: 'journey-agent',
    agentVersion: '1.0.0',
    contact: 'operator@example.org',
  };
  c.channel = {
    ...c.channel!,
    channelKey: request.channel.channelKey,
    displayName: `Journey ${role}`,
    audioProfile: 'stereo 48 kHz',
    intendedRole: role,
    narrationPresent: NARRATED.has(role),
    usageNotes: `Music for the ${role} role.`,
  };
  c.target = { ...c.target!, workSlug: step.workSlug, arrangementId: step.arrangementId };
  c.rights = {
    ...c.rights,
    territory: 'US, EU, CA',
    license: 'CC0-1.0',
    attribution: null,
    checkedAtUtc: '2026-11-01T00:00:00Z',
    evidenceUrls: ['https://en.wikipedia.org/wiki/Gymnop%C3%A9dies'],
  };
  c.assets = c.assets
    .filter((a) => request.requirements.requiredFormats.includes(a.kind))
    .map((a) => ({
      ...a,
      ...(a.kind === 'musicxml' && mxl
        ? { kind: 'mxl' as const, mediaType: 'application/vnd.recordare.musicxml' }
        : {}),
      title: `Gymnopedie No. 1 for ${role} (${a.kind})`,
      downloadUrl: h.fileUrl(file(a.kind)),
      sourcePageUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
      sha256: sha256(FILES[file(a.kind)]!),
      license: 'CC0-1.0',
      reviewState: 'technical-pass' as const,
    }));
  c.arrangement = {
    ...c.arrangement!,
    title: `Gymnopedie No. 1, ${MOODS[role]} ${role} arrangement`,
    style: 'solo piano',
    instrumentation: 'piano',
    duration: MADE.duration,
    intendedRole: role,
    moods: [request.requirements.mood],
    sections: [
      { label: 'opening', startSeconds: 0, endSeconds: 9 },
      { label: 'theme', startSeconds: 9, endSeconds: 19 },
    ],
  };
  c.reproducibility = {
    ...c.reproducibility!,
    engine: 'journey renderer 1.0',
    seed: '7',
    command: 'render arrangement.musicxml',
    manifestUrl: null,
    inputSha256: [sha256(FILES[MADE.musicxml]!)],
  };
  c.quality = { ...c.quality, technicalChecks: null };
  c.changeSummary = `A ${MOODS[role]} ${role} arrangement of Gymnopedie No. 1 with score and recording.`;
  c.rationale = `Resolve answered prepare: ${missing.map((m) => m.what).join(', ')}.`;
  return c;
}

describe('the agent loop: prepare -> contribute -> review -> reuse', () => {
  let template: MusicContributionInput;
  const codes: Partial<Record<MusicRole, string>> = {};

  beforeAll(async () => {
    template = (await h.app.inject({ url: '/api/v1/music/contributions/template' })).json();
  });

  it.each(MUSIC_ROLES.map((r) => [r]))(
    '%s: prepare, then reuse of the applied contribution',
    async (role) => {
      const before = await resolve(role);
      expect(before.verdict).toBe('prepare');
      expect(before.missing.length).toBeGreaterThan(0);

      const body = contributionFrom(template, before.missing, role);
      const submitted = await h.post('/api/v1/music/contributions', body, null);
      expect(submitted.statusCode, submitted.body).toBe(202);
      const code = submitted.json().data.trackingCode as string;
      codes[role] = code;

      const assets = body.assets.map((a, index) => ({
        index,
        reviewState: a.kind === 'mp3' ? ('human-listening-approved' as const) : ('human-reviewed' as const),
      }));
      const accepted = await h.post(`/api/v1/admin/contributions/${code}/accept`, {
        reviewer: 'Alice Editor',
        note: 'Listened in full.',
        assert: { assets, arrangement: 'human-listening-approved' },
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(accepted.json().data.review.blockers).toEqual([]);
      const applied = await h.post(`/api/v1/admin/contributions/${code}/apply`, { reviewer: 'Alice Editor' });
      expect(applied.statusCode, applied.body).toBe(200);
      expect(applied.json().data.status).toBe('applied');

      const after = await resolve(role);
      expect(after.verdict, JSON.stringify(after.candidates[0]?.reasons)).toBe('reuse');
      const first = after.candidates[0];
      expect(first.workSlug).toBe('satie-gymnopedie-1');
      expect(first.arrangementTitle).toBe(body.arrangement!.title);
      expect(first.moods).toEqual([MOODS[role]]);
      // The formats it offers are the contributed files, now canonical blobs.
      const work = (await h.app.inject({ url: '/api/v1/works/satie-gymnopedie-1' })).json().data;
      const landed = work.arrangements.find((a: { id: number }) => a.id === first.arrangementId);
      expect(landed.sections).toEqual(body.arrangement!.sections);
      const mp3 = landed.assets.find((a: { kind: string }) => a.kind === 'mp3');
      expect(first.formats.find((f: { format: string }) => f.format === 'mp3').assetId).toBe(mp3.id);
      expect(mp3.sha256).toBe(sha256(FILES[MADE.mp3]!));

      // The contributed score (MusicXML, or .mxl for one role) gets a Verovio score page and MIDI, like source scores.
      const score = landed.assets.find((a: { kind: string }) => a.kind === (role === MXL_ROLE ? 'mxl' : 'musicxml'));
      expect(score, role).toBeTruthy();
      const page = await h.app.inject({ url: `/works/satie-gymnopedie-1/score/${score.id}/` });
      expect(page.statusCode, `score page of ${score.kind} asset ${score.id}`).toBe(200);
      expect(page.body).toMatch(/engraved from the MusicXML file by Verovio/);
      const midi = /href="[^"]*\/score\/\d+\/(score\.mid)"/.exec(page.body);
      expect(midi, 'MIDI link').toBeTruthy();
      const mid = await h.app.inject({ url: `/works/satie-gymnopedie-1/score/${score.id}/${midi![1]}` });
      expect(mid.statusCode).toBe(200);
      expect(mid.rawPayload.subarray(0, 4).toString('latin1')).toBe('MThd');
      const workPage = (await h.app.inject({ url: '/works/satie-gymnopedie-1/' })).body;
      expect(workPage).toContain(`/works/satie-gymnopedie-1/score/${score.id}/`);
    },
    240_000,
  );

  it('records the admin key label as the actor in git log, the tracking history and the admin view', async () => {
    const code = codes['music-bed'];
    expect(code).toBeTruthy();
    const log = await git(h.contentRepo, ['log', '--merges', '--format=%B%x00', '-n', '20', 'main']);
    const merge = log.split('\0').find((m) => m.includes(`Tracking-Code: ${code}`))!;
    expect(merge).toMatch(/^Reviewed-By: alice$/m);
    expect(merge).toMatch(/^Reviewer-Display-Name: Alice Editor$/m);
    const trailers = await git(h.contentRepo, [
      'log',
      '--merges',
      `--grep=Tracking-Code: ${code}`,
      '--format=%(trailers:key=Reviewed-By,valueonly)',
      'main',
    ]);
    expect(trailers.trim()).toBe('alice');

    const tracking = (await h.app.inject({ url: `/api/v1/music/contributions/${code}` })).json().data;
    expect(tracking.history.map((e: { status: string; actor?: string }) => [e.status, e.actor ?? null])).toEqual([
      ['pending', null],
      ['accepted', 'alice'],
      ['applied', 'alice'],
    ]);
    const admin = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(
      admin.review.actions.map((a: { action: string; actor: string; reviewer: string }) => [
        a.action,
        a.actor,
        a.reviewer,
      ]),
    ).toEqual([
      ['accept', 'alice', 'Alice Editor'],
      ['apply', 'alice', 'Alice Editor'],
    ]);
    expect(admin.review.assertions).toMatchObject({ actor: 'alice', reviewer: 'Alice Editor' });
  });

  it('refuses listening approval from a key without an operator-given label; other actions are attributed to its generated label', async () => {
    const body = contributionFrom(
      template,
      [{ what: 'mood-fit', operation: 'arrangement', workSlug: 'satie-gymnopedie-1', arrangementId: null }],
      'music-bed',
    );
    body.idempotencyKey = 'journey-unlabeled-1';
    const code = (await h.post('/api/v1/music/contributions', body, null)).json().data.trackingCode as string;
    const refused = await h.post(
      `/api/v1/admin/contributions/${code}/accept`,
      { reviewer: 'Anyone', assert: { assets: [{ index: 1, reviewState: 'human-listening-approved' }] } },
      UNLABELED_ADMIN_KEY,
    );
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json().detail).toContain('label=secret');
    const asked = await h.post(
      `/api/v1/admin/contributions/${code}/request-information`,
      { reviewer: 'Anyone', note: 'Which renderer?' },
      UNLABELED_ADMIN_KEY,
    );
    expect(asked.statusCode, asked.body).toBe(200);
    const actor = asked.json().data.review.actions.at(-1).actor as string;
    expect(actor).toMatch(/^key-[0-9a-f]{6}$/);
    expect(asked.json().data.history.at(-1)).toMatchObject({ status: 'needs-information', actor });
  });
});
