/**
 * The words of the discovery documents (API index, workflow, llms.txt), built from the served
 * operation list so they never advertise a path the server does not answer.
 */
import { OPERATIONS } from '../openapi/document.ts';
import { CATALOG_REVIEW_STATES, MUSIC_ROLES, type MusicRole } from '../schemas/common.ts';
import { ChannelContext, MusicRequirements } from '../schemas/channel.ts';
import type { ApiIndex, Workflow } from '../schemas/discovery.ts';
import { REVIEW_STATE_LABELS, REVIEW_STATE_MEANINGS } from './review-states.ts';
import type { Urls } from './records.ts';
import { WORKS_DEFAULT_PAGE_SIZE, WORKS_MAX_PAGE_SIZE } from './works-query.ts';
import { BODY_LIMIT_POLICY, RATE_LIMIT_POLICY } from './contributions/policy.ts';
import { resolveLlmsSection, resolveWorkedExample } from './resolve/guide.ts';
import { VERSIONING_POLICY, DEPRECATION_NOTICE_DAYS } from './deprecation.ts';
import { MusicContributionInput } from '../schemas/contribution.ts';
import { CorrectionReportInput } from '../schemas/correction.ts';

export const SERVICE_NAME = 'Public-Domain Music Archive';

function served(method: string, path: string): boolean {
  return OPERATIONS.some((op) => op.method === method && op.path === path);
}

export const ROLE_MEANINGS: Record<MusicRole, string> = {
  'music-bed': 'Background under speech or action; steady, unobtrusive, no strong melody competing with narration.',
  'music-lead': 'Music in the foreground; the melody carries the moment.',
  'music-ambient': 'Atmosphere; slow, sparse, often loopable.',
  'music-sleep-lead': 'Foreground music for sleep and relaxation content; soft dynamics, no sudden changes.',
  intro: 'Opening cue of a program.',
  outro: 'Closing cue of a program.',
  'short-form': 'Short clips (under a minute) for short-form video.',
};

export const BOUNDARIES = [
  '`technical-pass` means automated checks passed; it is not human listening approval.',
  '`rights-review-required` is not permission to publish; such material is never offered as ready.',
  'Only an accountable, named human may assert listening approval (`human-listening-approved`).',
  'A contribution becomes a reusable archive asset only when its status is `applied` and the asset appears in the canonical work record.',
  'Import into the private library is not publication: packages stay private until a curator publishes an eligible one.',
  'The three rights layers (composition, edition/file, recording) are independent: a public-domain composition does not make an edition or a recording free.',
];

export function buildApiIndex(u: Urls): ApiIndex {
  return {
    name: SERVICE_NAME,
    description:
      'A catalog of public-domain musical works with source scores, arrangements, profiles and media, for channel-production agents and readers. ' +
      'Resolve music for a channel, reuse a canonical asset when one is ready, and otherwise contribute one through human review.',
    openapiVersion: '3.1.1',
    descriptionVersion: '1.0.0',
    capabilities: OPERATIONS.map((op) => ({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      summary: op.summary,
    })),
    conventions: {
      envelope: 'JSON resources come as { apiVersion: "v1", generatedAtUtc, data }.',
      timestamps: 'UTC, RFC 3339, ending in "Z".',
      language: 'American English.',
      identifiers:
        'Works and profiles have stable slugs; assets and arrangements have integer ids, unique within their work. Keep the slug and asset id with any claim you extract.',
      links: 'Every link is absolute.',
      errors:
        'RFC 9457 problem details (application/problem+json); `type` is a URL that documents the problem; validation failures list every violation in `errors[]` with a JSON Pointer or parameter name.',
      caching:
        'Records are static files with strong ETags and Cache-Control. Revalidate with If-None-Match (304 Not Modified) instead of refetching unchanged records.',
      rateLimits: `A rate-limited caller receives 429 with Retry-After (seconds); back off and retry after that time. ${RATE_LIMIT_POLICY} ${BODY_LIMIT_POLICY}`,
      authentication:
        'Public reads need no key. The private library needs a key in the X-Archive-Import-Key header or Authorization: Bearer; never put a key in a URL.',
      pagination: `page starts at 1; pageSize defaults to ${WORKS_DEFAULT_PAGE_SIZE} for works (maximum ${WORKS_MAX_PAGE_SIZE}); responses carry total and first/prev/next/last links.`,
      versioning: `${VERSIONING_POLICY} Changelog: ${u.changelog}`,
    },
    links: {
      self: u.apiIndex,
      openapi: u.openapi,
      workflow: u.workflow,
      llms: u.llms,
      llmsFull: u.llmsFull,
      changelog: u.changelog,
      mcp: u.mcp,
      works: u.works,
      instruments: u.instruments,
      profiles: u.profiles,
      vocabulary: u.vocabulary,
      site: `${u.base}/`,
    },
  };
}

export function buildWorkflow(u: Urls): Workflow {
  return {
    name: 'find-or-prepare',
    summary:
      'Declare your channel, find a ready canonical candidate and reuse it; when none is ready, contribute one structured package for human review and track it.',
    steps: [
      {
        step: 1,
        title: 'Search the catalog',
        description:
          'Find works by title, composer (any name form) or catalog number; filter by genre, instrument and style.',
        method: 'GET',
        href: u.works,
        available: served('get', '/api/v1/works'),
      },
      {
        step: 2,
        title: 'Resolve music for your channel',
        description: `Send your channel (key + intended role) and requirements with the header Prefer: return=minimal: the compact answer (at most 8,000 bytes for ten candidates) says reuse, prepare or no-music and gives, per candidate, the asset id and download link of each requested format, the license, the attribution and the territory notes; links.full is the full answer with every reason. Style, instrumentation and mood words are matched by meaning against the terms at ${u.vocabulary} (a brief's own words: "chilled", "no vocals", "something like Pachelbel's Canon").`,
        method: 'POST',
        href: u.resolve,
        available: served('post', '/api/v1/music/resolve'),
      },
      {
        step: 3,
        title: 'Read the canonical record',
        description:
          'Fetch the work record (JSON or Markdown) and keep slug, asset ids, licenses, rights notes and review states with anything you extract. Revalidate with If-None-Match.',
        method: 'GET',
        href: `${u.works}/{slug}`,
        available: served('get', '/api/v1/works/{slug}'),
      },
      {
        step: 4,
        title: 'Contribute what is missing',
        description:
          'Copy the template, replace every placeholder with verified facts, keep files at your HTTPS URLs with SHA-256 digests, and submit once per idempotency key.',
        method: 'POST',
        href: u.contributions,
        available: served('post', '/api/v1/music/contributions'),
      },
      {
        step: 5,
        title: 'Track the review',
        description:
          'Poll the tracking code; reuse the asset only when the status is `applied` and it appears in the canonical record.',
        method: 'GET',
        href: `${u.contributions}/{trackingCode}`,
        available: served('get', '/api/v1/music/contributions/{trackingCode}'),
      },
      {
        step: 6,
        title: 'Answer a request for information',
        description:
          'When a reviewer sets your item to `needs-information` (the history note says what), answer with a public message and, for a contribution, optionally the revised body (same contract, same idempotencyKey), sending the `responseToken` of your 202 answer in the Archive-Response-Token header (never in a URL). The item goes back to `pending`.',
        method: 'POST',
        href: `${u.contributions}/{trackingCode}/answers`,
        available: served('post', '/api/v1/music/contributions/{trackingCode}/answers'),
      },
      {
        step: 7,
        title: 'Report errors you find',
        description:
          'Propose a change to one field of a record with evidence; a person reviews it (a report is answered the same way, at /api/v1/correction-reports/{trackingCode}/answers).',
        method: 'POST',
        href: u.correctionReports,
        available: served('post', '/api/v1/correction-reports'),
      },
    ],
    channelContract: {
      description:
        'A channel is a key plus the role music plays in it. `musicAllowed: false` means no music at all; `narrationPresent: true` favors beds and ambient material over lead material.',
      roles: MUSIC_ROLES.map((role) => ({ role, meaning: ROLE_MEANINGS[role] })),
      channelSchema: JSON.parse(JSON.stringify(ChannelContext)),
      requirementsSchema: JSON.parse(JSON.stringify(MusicRequirements)),
    },
    rightsChecklist: [
      {
        id: 'composition',
        check:
          'The composition is public-domain (or permission is documented) in every territory you publish to; read the US, EU and CA notes.',
        why: "Public-domain status depends on the territory and the composer's death date.",
      },
      {
        id: 'edition',
        check:
          'The edition or file you use is public-domain, licensed to you, or an original contribution with a license you can follow.',
        why: 'A modern edition of an old work can be protected on its own.',
      },
      {
        id: 'recording',
        check: 'The recording is public-domain, licensed, or an original recording with its license.',
        why: 'Recordings carry their own rights, independent of the composition.',
      },
      {
        id: 'review-state',
        check:
          'The asset is `human-listening-approved` if you publish it as audio, and never `rights-review-required`.',
        why: 'A technical pass is not listening approval; rights review is not permission.',
      },
      {
        id: 'attribution',
        check: 'Carry license, attribution, source URLs and rights notes forward with the slug and asset id.',
        why: 'Anyone downstream must be able to check what you relied on.',
      },
      {
        id: 'evidence',
        check: "Rights evidence is dated HTTPS material, and the record's checkedAtUtc is recent enough for your use.",
        why: 'Rights facts can change when records are corrected.',
      },
    ],
    reviewStates: CATALOG_REVIEW_STATES.map((state) => ({
      state,
      label: REVIEW_STATE_LABELS[state],
      meaning: REVIEW_STATE_MEANINGS[state],
    })),
    boundaries: BOUNDARIES,
    resolveExample: resolveWorkedExample(u),
    cooperationRequest: {
      text:
        'Cache records and revalidate with If-None-Match; honor 429 and Retry-After; never put keys in URLs, prompts, repositories or video descriptions; ' +
        'when something you need is missing, contribute it once with verified facts instead of working around the archive; report errors you find.',
      keepWithEveryClaim: [
        'work slug',
        'asset id',
        'license',
        'attribution',
        'rights note',
        'review state',
        'source URL',
      ],
    },
  };
}

/** One MCP tool as the guides name it. */
export interface ToolNote {
  name: string;
  description: string;
}

/**
 * /llms.txt by the llmstxt.org convention: an H1, a summary blockquote, a short paragraph, then H2
 * sections that are lists of `[name](url): note` links, the last one `## Optional`. Every link is
 * a GET that answers 200 (test/http/llms.slow.test.ts follows them all).
 */
export function buildLlmsTxt(u: Urls, exampleSlug: string, examplePerson: string | null = null): string {
  return `# ${SERVICE_NAME}

> Public-domain musical works with source scores, arrangements, rendering profiles and media, for channel-production agents and readers: resolve music for a channel, reuse a canonical asset when one is ready, and otherwise contribute one through human review. Every link is absolute; every timestamp is UTC ending in Z.

The loop: POST your channel and requirements to ${u.resolve} with the header \`Prefer: return=minimal\`: the compact answer (at most 8,000 bytes for ten candidates, about a third of the full one) has the verdict and, per candidate, what to act on: the asset id and download link of each requested format, the license, the attribution and the territory notes (links.full is the full answer, with every reason and note). On "reuse", use the first candidate. On "prepare", take the first missing[] item with an operation (it names the operation and the target workSlug, arrangementId and assetId), fill the contribution template from your own facts (a placeholder left in is refused), declaring the role, moods, duration, loop/trim and sections you asked for, and POST it. Track it until "applied"; the same resolve request then answers "reuse" with your contribution first.

Cache records and revalidate with If-None-Match (304 means your copy is current). On HTTP 429 wait the Retry-After seconds before retrying. Public reads need no key; Never put a key in a URL, a prompt or a repository. MCP hosts can connect to ${u.mcp} (Streamable HTTP) or run \`npm run mcp\` (stdio); see the full guide.

## Start here

- [Full guide](${u.llmsFull}): the workflow, rules, caching, keys, MCP tools and every operation in one text
- [API index](${u.apiIndex}): capabilities, conventions (envelope, errors, caching, rate limits, versioning) and discovery links
- [OpenAPI document](${u.openapi}): OpenAPI 3.1.1, generated from the same schemas that validate requests
- [Find-or-prepare workflow](${u.workflow}): steps, channel contract, rights checklist, review states and their boundaries

## Catalog

- [Works](${u.works}): search and page through the catalog (query, composer, genre, instrument, style; accent-insensitive)
- [Example work record](${u.work(exampleSlug)}): one canonical record as JSON; keep the slug and asset id with every claim
- [Example work record as Markdown](${u.workMarkdown(exampleSlug)}): the same record, compact, for reading
- [People](${u.people}): composers and lyricists, each a record with names, birth and death (or "unknown"), Wikidata id, evidence with who accepted it, and every work that names them; their facts decide the rights of those works${examplePerson ? `\n- [Example person record](${u.person(examplePerson)}): one person as JSON (GET /api/v1/people/{slug}); to correct a fact, send a correction report naming one of their works with targetType "composer" or "lyricist" and the field (born, died, wikidataId)` : ''}
- [Instruments](${u.instruments}): normalized instruments, families and registered profiles
- [Rendering profiles](${u.profiles}): performance styles and instruments, with render readiness
- [Vocabulary](${u.vocabulary}): the mood, style/genre and instrumentation terms resolve matches your words against, with synonyms, word forms and broader terms

## Contribute

- [Contribution contract](${u.contributionSchema}): JSON Schema of a contribution, with limits and rules
- [Contribution template](${u.contributionTemplate}): replace every placeholder with verified facts, then POST it to ${u.contributions} with a new idempotencyKey

## Optional

- [Changelog](${u.changelog}): what changed, and the versioning and deprecation policy (${DEPRECATION_NOTICE_DAYS} days of notice)
- [API documentation for people](${u.base}/api-docs/): the same operations, rendered
- [Site](${u.base}/): browse works, people, instruments and profiles
`;
}

function topLevelFields(schema: { properties: Record<string, { description?: string }>; required?: string[] }): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .map(([name, s]) => `- \`${name}\`${required.has(name) ? ' (required)' : ''}: ${s.description ?? ''}`.trimEnd())
    .join('\n');
}

/** /llms-full.txt: the workflow, rules and contract in one text. */
export function buildLlmsFullTxt(u: Urls, tools: ToolNote[]): string {
  return `${buildLlmsGuide(u)}
## Versioning and deprecation

${VERSIONING_POLICY}

Changelog: ${u.changelog}

## MCP server

- Streamable HTTP (stateless): POST ${u.mcp}; or stdio: \`ARCHIVE_BASE_URL=${u.base} npm run mcp\` in a checkout of the archive.
- Tools call this HTTP API, so validation, idempotency and rate limits are the same; a refused call is a tool error whose text carries the problem detail (fields and JSON Pointers).
- Work records are resources: archive://works/{slug} (JSON and Markdown).

${tools.map((t) => `- \`${t.name}\`: ${t.description}`).join('\n')}

## Contract: contribution fields

${topLevelFields(MusicContributionInput as never)}

## Contract: correction report fields

${topLevelFields(CorrectionReportInput as never)}

## Contract: every operation

${OPERATIONS.map((op) => `- ${op.method.toUpperCase()} ${u.base}${op.path}: ${op.summary}`).join('\n')}
`;
}

/** The long guide (the first part of /llms-full.txt). */
function buildLlmsGuide(u: Urls): string {
  return `# ${SERVICE_NAME}

> Public-domain musical works with source scores, arrangements, rendering profiles and media, for channel-production agents and readers. Every link is absolute; every timestamp is UTC ending in Z.

## How to use it

1. Read the API index: ${u.apiIndex} and the OpenAPI document: ${u.openapi}
2. Follow the find-or-prepare workflow: ${u.workflow}
3. Search works: ${u.works}?composer=bach (case- and accent-insensitive: "dvorak" finds "Dvořák"; page starts at 1, pageSize defaults to ${WORKS_DEFAULT_PAGE_SIZE}, at most ${WORKS_MAX_PAGE_SIZE}).
4. Read one work as JSON: ${u.works}/{slug} or as compact Markdown: ${u.works}/{slug}/index.md
5. Instruments: ${u.instruments}; rendering profiles: ${u.profiles}
6. Contribute what is missing: read the contract ${u.contributionSchema}, copy the template ${u.contributionTemplate}, replace every placeholder (text starting "REPLACE:", the key starting "REPLACE-", URLs under https://example.invalid/, all-zero digests, the 2000-01-01 timestamp) with verified facts (a placeholder left in is refused with a 400 naming the field), and POST it to ${u.contributions} with a new idempotencyKey. The 202 answer carries your tracking code and a secret responseToken; follow the code at ${u.contributions}/{trackingCode}, and reuse the asset only when the status is "applied" and it appears in the work record. Retrying with the same key and identical content is safe (same code, same token); changed content needs a new key (422 otherwise).
7. Report an error in one field of a record: POST ${u.correctionReports}; follow it at ${u.correctionReports}/{trackingCode}.
8. Answer a reviewer: when your item's status is "needs-information" (the last history note says what is needed), POST { "message": "...", "submission": <the whole revised contribution, optional, same idempotencyKey> } to ${u.contributions}/{trackingCode}/answers (reports: ${u.correctionReports}/{trackingCode}/answers, message only) with the header "Archive-Response-Token: <responseToken from the 202>". Never put the token in a URL, a prompt or a repository; keep it like a key. The message is public, like the reviewer's note. The item goes back to "pending"; a revised body is validated exactly like a new contribution and replaces the proposed change. A missing or wrong token is 401 invalid-response-token; an item not in "needs-information" is 409. Nothing changes on a refusal.

${resolveLlmsSection(u)}

## Rules that keep your output publishable

${BOUNDARIES.map((b) => `- ${b}`).join('\n')}
- Keep the work slug and asset id with every claim you extract, and carry source URLs, licenses, attribution, rights notes and review states forward.
- Keep files at your own HTTPS URLs with their SHA-256; never put binary content or data: URLs in the JSON. Only a human (submittedBy.kind "Human") may assert listening approval.

## Caching and back-off

- Records are static files with strong ETags. Store the ETag and send it back in If-None-Match; a 304 means your copy is current. Do not refetch unchanged records.
- On HTTP 429, wait the number of seconds in Retry-After, then retry. Do not retry faster.
- ${RATE_LIMIT_POLICY}
- Errors are RFC 9457 problem details (application/problem+json); read \`detail\` and \`errors[]\`, fix the named field, and do not retry an unchanged invalid request.

## Keys

Public reads need no key. The private library uses a key sent in the X-Archive-Import-Key header or as Authorization: Bearer <key>. Never put a key in a URL, a prompt, a repository or a video description.
`;
}
