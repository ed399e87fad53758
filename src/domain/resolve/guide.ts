/**
 * How to use resolve, in words, for the discovery documents: the section of /llms.txt and the
 * worked example of the workflow document. Kept next to the rules it describes so the words
 * change with them; discovery.ts places them.
 */
import type { Urls } from '../records.ts';

/** A worked example: a request and its answer (abbreviated), taken from the sample catalog. */
export function resolveWorkedExample(u: Urls) {
  const file = (name: string) => `${u.base}/works/pachelbel-canon-in-d/files/${name}`;
  return {
    description:
      'A narrated history channel asks for a calm bed of about a minute as MP3 and MusicXML, naming the work by title and composer. ' +
      'The answer is reuse: arrangement 1 of pachelbel-canon-in-d is ready (listening-approved, CC0-1.0, loops to fill 60 s).',
    method: 'POST',
    href: u.resolve,
    request: {
      title: 'Canon in D',
      composer: 'Pachelbel',
      channel: { channelKey: 'calm-history-narrated', intendedRole: 'music-bed', narrationPresent: true },
      requirements: { mood: 'calm', targetDurationSeconds: 60, requiredFormats: ['mp3', 'musicxml'] },
    },
    response: {
      apiVersion: 'v1',
      data: {
        verdict: 'reuse',
        candidates: [
          {
            position: 1,
            ready: true,
            score: 99,
            workSlug: 'pachelbel-canon-in-d',
            arrangementId: 1,
            arrangementTitle: 'Canon: strings bed',
            reviewState: 'human-listening-approved',
            reviewStatus: 'Human listening approved',
            license: 'CC0-1.0',
            attribution: 'Public-Domain Music Archive',
            fit: {
              kind: 'loop',
              targetSeconds: 60,
              durationSeconds: 18.2,
              durationSource: 'measured',
              deltaSeconds: -41.8,
              toleranceSeconds: 6,
              repeats: 4,
              maxRepeats: 40,
            },
            listen: {
              url: file('canon-strings-bed.mp3'),
              assetId: 11,
              format: 'mp3',
              reviewStatus: 'Human listening approved',
              reason: null,
            },
            formats: [
              { format: 'mp3', assetId: 11, download: file('canon-strings-bed.mp3') },
              { format: 'musicxml', assetId: 12, download: file('canon-strings-bed.musicxml') },
            ],
            reasons: [
              {
                requirement: 'role',
                passed: true,
                detail:
                  'Made for music-bed (also suits: music-ambient). Narration is present: bed and ambient material is preferred.',
              },
              {
                requirement: 'duration',
                passed: true,
                detail:
                  '18 s measured (asset 11) against a target of 60 s: shorter, and the record marks it loopable (its seam has not been measured) (4 repeats; at most 40 for music-bed).',
              },
              {
                requirement: 'arrangement-review',
                passed: true,
                detail:
                  'Human listening approved: An accountable, named person listened to it and approved it for reuse.',
              },
            ],
          },
          { position: 2, ready: true, workSlug: 'pachelbel-canon-in-d', arrangementId: 2 },
          {
            position: 3,
            ready: false,
            workSlug: 'pachelbel-canon-in-d',
            arrangementId: 3,
            summary: 'Not ready: required-formats, duration fail.',
          },
        ],
        missing: [],
      },
    },
    readingTheAnswer: [
      'reuse: take candidates[0]; keep workSlug, arrangementId and the assetId of each format with everything you publish, and carry license, attribution, rights (with the territory notes) and review states forward.',
      'prepare: nothing is ready; missing[] names what keeps the best candidate from being ready and the contribution operation that supplies it (target: workSlug, arrangementId, assetId). Copy the contribution template, submit once, and resolve again after the contribution is applied. An item with operation null is one no contribution can supply: it waits for a human reviewer (listening approval), or for a missing rights fact recorded by a correction report with evidence (the item names the fact and the report).',
      'no-music: the channel declared musicAllowed: false; nothing is offered.',
      'technical-pass is never listening approval, and rights-review-required is never ready; reasons[] says so in words for every candidate.',
      'fit says how each candidate meets targetDurationSeconds (native, loop, trim or edit, with deltaSeconds and the loop repeats; a loop needing more repeats than the role allows is edit, not ready; measured durations are preferred over declared ones); listen.url is a public MP3/WAV to hear it before choosing, or listen.reason says why there is none.',
      `style, instrumentation and mood words are matched by meaning against the vocabulary at ${u.vocabulary}, with a grade (exact, word form, synonym, broader or narrower term, two steps) that ranks candidates of equal score; "no vocals", "without drums" and "instrumental" are constraints; "something like X" ranks by closeness to the work X names; each reason says how every word matched and lists the words that matched nothing.`,
      'score is the ranking in one number (ready 60-100, right music not ready 30-59, role only 10-29, neither 0-9): it never rises down the list.',
      'Send Prefer: return=minimal for the compact answer (at most 8,000 bytes for ten candidates; links.full is the full one): per candidate the asset id and download link of each requested format, the license, the attribution and the territory notes, ready to act on.',
    ],
  };
}

/** The resolve section of /llms.txt. */
export function resolveLlmsSection(u: Urls): string {
  return `## Resolve music for your channel

POST ${u.resolve} with a JSON body (application/json, text/json or application/*+json) and the header Prefer: return=minimal (the compact answer; leave the header out for the full one):

{"title": "Canon in D", "composer": "Pachelbel",
 "channel": {"channelKey": "calm-history-narrated", "intendedRole": "music-bed", "narrationPresent": true},
 "requirements": {"mood": "calm", "targetDurationSeconds": 60, "requiredFormats": ["mp3", "musicxml"]}}

- Name the work by workSlug (exact), or by title and/or composer (any name form: "Bach, J.S.", "J. S. Bach"; accents optional; catalog numbers such as "BWV 846"; popular titles such as "Air on the G String" or "Moonlight Sonata"), or leave it out to search the whole catalog by role, style, instrumentation and mood.
- The compact answer (Prefer: return=minimal; at most 8,000 bytes for ten candidates) gives per candidate: work, arrangement, title, ready, fit with loop repeats, listen link, downloads (asset id and link of each requested format), license, attribution, territory notes, each failing check in one line, rights and review in one line; links.full is the full answer. Without the header the full answer is sent.
- Style, instrumentation and mood words are matched by meaning, never inside another word, in a brief's own words: the same word, a word form ("calming"), a synonym ("restful" finds calm, "keys" finds keyboard instruments, "chilled" and "laid-back" find calm beds), a broader or narrower term ("calm" finds serene, "serene" finds calm, "cello" finds a string ensemble), or two steps away; the grade ranks candidates of equal score. Function words and catalog numbers ("No. 1", "Op. 9") are not matched; "no vocals", "without drums", "not sad" and "instrumental" are constraints; "something like Pachelbel's Canon" or "in the style of Satie" ranks by closeness to the work named. The terms, their synonyms and broader terms: ${u.vocabulary}. Each reason says how every word matched and lists the words that matched nothing.
- The answer (in the envelope, Cache-Control: no-store) has verdict reuse, prepare or no-music, and at most 10 ranked candidates. Each carries workSlug, arrangementId, per-format assetId and absolute download link, license, attribution, rights with US/EU/CA territory notes, review states, a score, and reasons[]: every requirement, passed or failed, with why.
- reuse: candidates[0] is ready: human-listening-approved, rights cleared in every layer, every requested format a public file. Keep workSlug, arrangementId and assetId with what you publish.
- prepare: nothing is ready. missing[] names each missing thing and the contribution operation that supplies it (new-work, metadata-revision, source-score, score-revision, arrangement, performance, rendering-profile), with the target workSlug, arrangementId and assetId; operation null means no contribution supplies it: it waits for a human reviewer (listening approval), or for a fact recorded by a correction report with evidence (a death year, a first publication: the item names which). Template: ${u.contributionTemplate} Schema: ${u.contributionSchema}
- The loop, as an agent follows it: (1) resolve; on reuse, use candidates[0]. (2) On prepare, take the first missing[] item whose operation is not null: its operation is your contribution's operation, its workSlug your target.workSlug, its arrangementId your target.arrangementId (the files are then added to that arrangement) and its assetId your target.assetId. (3) GET the template and fill every placeholder from your own facts; the archive refuses a placeholder left in (400 naming each field). Declare what you asked resolve for: arrangement.intendedRole (your channel role), arrangement.moods (your mood words), arrangement.duration (m:ss of your file; loopable / trimmable where true), alsoSuits and sections with times; one HTTPS URL and SHA-256 per requested format. (4) POST it; the 202 answer's recheck[] says which declared states the archive re-checks itself (technical checks) and which wait for a named reviewer (listening approval). (5) Poll the tracking code until "applied". (6) Send the same resolve request again: it answers reuse with your arrangement first.
- An unknown workSlug is a prepare answer (new-work), not an error. Invalid bodies get a 400 problem listing every field at fault.
- A technical pass is not listening approval; rights-review-required is never ready.
`;
}
