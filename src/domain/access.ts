/**
 * Who may follow an asset's link, in words and links, for one build (docs/reader-sign-in.md).
 *
 * A `signed-in` asset is downloadable only through the protected route
 * `GET /api/v1/works/{slug}/assets/{assetId}/download`, and only when the archive offers reader
 * sign-in (GitHub OAuth, GITHUB_OAUTH_CLIENT_ID/SECRET). Whether it does is a build input
 * (`scripts/build.ts --reader-sign-in github|none`, chosen by `npm start` from the configuration and
 * part of the build's folder key), because records and pages are static files: they must say what
 * this archive actually does, not promise a 401 that nothing answers.
 *
 * `admin-only` files are never offered to readers; `public` files keep their public links.
 */
import type { AccessLevel } from '../schemas/common.ts';
import { ACCESS_MEANINGS } from './review-states.ts';

/** Build-time facts about access: does this archive sign readers in, and where. */
export interface AccessContext {
  /** True when the build was made for an archive that offers reader sign-in. */
  readerSignIn: boolean;
}

export const NOT_OFFERED =
  'Signed-in download is not offered by this archive: it has no reader sign-in, so this file cannot be downloaded here.';

const enc = encodeURIComponent;

/** The protected download route of one asset (absolute). */
export function signedInDownloadUrl(base: string, slug: string, assetId: number): string {
  return `${base}/api/v1/works/${enc(slug)}/assets/${assetId}/download`;
}

/** Where a reader signs in, coming back to `returnPath` (a path on this site) afterwards. */
export function signInUrl(base: string, returnPath?: string): string {
  return `${base}/api/v1/reader/sign-in${returnPath ? `?return=${enc(returnPath)}` : ''}`;
}

/** What an access level means in this build, with the sign-in link where one is offered. */
export function accessMeaning(access: AccessLevel, ctx: AccessContext, signIn?: string): string {
  if (access !== 'signed-in') return ACCESS_MEANINGS[access];
  if (!ctx.readerSignIn) return NOT_OFFERED;
  return `Requires a reader signed in with GitHub: the link answers 401 without a session${signIn ? `; sign in at ${signIn}` : ''}.`;
}

/** True when a return path is a path on this site (not another origin, not a scheme). */
export function isLocalReturnPath(value: string): boolean {
  return RETURN_PATH.test(value) && value.length <= 500;
}

/** A root-relative path of URL characters, no quotes or angle brackets (the same rule as ReaderSignInQuery). */
export const RETURN_PATH_PATTERN = '^/(?![/\\\\])[A-Za-z0-9._~!$&()*+,;=:@%/?-]*$';
const RETURN_PATH = new RegExp(RETURN_PATH_PATTERN);
