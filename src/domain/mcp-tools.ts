/**
 * What each MCP tool is called and does, as data: the MCP server (api/mcp/tools.ts) announces
 * these, and /llms-full.txt lists them, so the text a model reads in either place is the same and
 * the site build needs nothing from the server code. In the order the server lists its tools.
 */
import { RESPONSE_TOKEN_HEADER } from '../schemas/answer.ts';

export interface McpToolText {
  name: string;
  title: string;
  description: string;
}

/** Works per page of search_works unless the agent asks for another page size. */
export const MCP_SEARCH_PAGE_SIZE = 10;

export const MCP_TOOL_TEXTS: readonly McpToolText[] = [
  {
    name: 'resolve_music',
    title: 'Resolve music for a channel',
    description:
      'Send your channel (key + intended role) and requirements; the answer is reuse (a ready canonical asset), prepare (what to contribute) or no-music, with ranked candidates. Compact by default, at most 8,000 bytes (per candidate: ready, fit, listen link, the asset id and download link of each requested format, license, attribution, territory notes, failing checks in one line, rights and review in one line; links.full is the whole answer); full: true for every reason, asset and rights note. Mood, style and instrumentation words are matched by meaning against GET /api/v1/music/vocabulary (synonyms, word forms, broader and narrower terms, graded); "no vocals" is a constraint; "something like Pachelbel\'s Canon" ranks by closeness to that work. Changes nothing. POST /api/v1/music/resolve.',
  },
  {
    name: 'search_works',
    title: 'Search the catalog',
    description: `Search canonical works by words, composer (any name form, accent-insensitive), genre, instrument or style. Pages of ${MCP_SEARCH_PAGE_SIZE} works unless pageSize says otherwise; data.links.next is the next page (or ask for page 2, 3, ...). Same as GET /api/v1/works.`,
  },
  {
    name: 'get_work',
    title: 'Read one work record',
    description:
      'The canonical work record as JSON (slug, asset ids, licenses, rights notes, review states) plus the same record as compact Markdown. Keep the slug and asset id with any claim you extract.',
  },
  {
    name: 'get_contribution_template',
    title: 'Get the contribution template',
    description:
      'A complete contribution for workSlug and operation (take both, and arrangementId, from a resolve missing[] item) with placeholders: replace every placeholder (text starting "REPLACE:", the key starting "REPLACE-", URLs under https://example.invalid/, all-zero digests, the 2000-01-01 timestamp) with verified facts, then call submit_contribution with a new idempotencyKey.',
  },
  {
    name: 'submit_contribution',
    title: 'Submit a contribution for human review',
    description:
      'Submit one structured contribution (same contract, validation, idempotency and rate limit as POST /api/v1/music/contributions). The answer carries a tracking code; retrying with the same idempotencyKey and identical content returns the same code. A refusal is a tool error with the problem detail, naming every invalid field by JSON Pointer.',
  },
  {
    name: 'get_submission_status',
    title: 'Track a contribution or correction report',
    description:
      'Status, history with public notes and review link of a contribution ("C-…") or correction report ("R-…"). Reuse an asset only when the status is "applied" and it appears in the canonical record.',
  },
  {
    name: 'submit_correction_report',
    title: 'Report an error in a record',
    description:
      'Propose a change to one field of a record with evidence; a person reviews it (same validation and rate limit as POST /api/v1/correction-reports). The answer carries an "R-…" tracking code.',
  },
  {
    name: 'answer_information_request',
    title: "Answer a reviewer's request for information",
    description: `When a contribution ("C-…") or correction report ("R-…") is "needs-information" (the history note says what the reviewer needs), answer it: a public message and, for a contribution, optionally the whole revised contribution (same contract as submit_contribution, same idempotencyKey), which replaces the proposed change. Needs the responseToken from the submit tool's answer (sent as the ${RESPONSE_TOKEN_HEADER} header, never in a URL). The item goes back to "pending" for review; the answer shows in its history. Same validation and rate limit as the HTTP endpoint.`,
  },
  {
    name: 'list_profiles',
    title: 'List rendering profiles',
    description:
      'Rendering profiles (performance styles and instruments), filterable by kind, status, render readiness and words. Same as GET /api/v1/profiles.',
  },
  {
    name: 'list_instruments',
    title: 'List instruments',
    description:
      'Normalized instruments with aliases, families, registered profiles and readiness. Same as GET /api/v1/instruments.',
  },
];

/** The name, title and description of the tool `name` (a name not listed is a programming error). */
export function describeTool(name: string): McpToolText {
  const text = MCP_TOOL_TEXTS.find((t) => t.name === name);
  if (!text) throw new Error(`no MCP tool text for ${name} in src/domain/mcp-tools.ts`);
  return text;
}
