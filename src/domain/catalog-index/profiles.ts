/**
 * Profiles in the index. A profile record lists every work that uses it (`catalogUsage.works`),
 * so at catalog scale a few profile records hold a line per work. The server keeps only each
 * profile's head (everything but that list) to filter and to resolve with, and answers
 * GET /api/v1/profiles by joining the records' JSON texts, stored ready in the index: the listing
 * never serializes the usage lists again.
 */
import type { ProfileRecord } from '../../schemas/profile.ts';

/** A profile without its usage list (the arrangement count stays). */
export type ProfileHead = Omit<ProfileRecord, 'catalogUsage'> & {
  catalogUsage: Pick<ProfileRecord['catalogUsage'], 'arrangementCount'>;
};

export function profileHead(p: ProfileRecord): ProfileHead {
  return { ...p, catalogUsage: { arrangementCount: p.catalogUsage.arrangementCount } };
}

/**
 * The listing body for the profiles at `texts` (each the JSON text of one record), exactly as
 * JSON.stringify(envelope({ items, total }, generatedAtUtc)) would write it.
 */
export function profileListingBody(apiVersion: string, generatedAtUtc: string, texts: Buffer[]): Buffer {
  const head = Buffer.from(
    `{"apiVersion":${JSON.stringify(apiVersion)},"generatedAtUtc":${JSON.stringify(generatedAtUtc)},"data":{"items":[`,
  );
  const parts: Buffer[] = [head];
  texts.forEach((t, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(t);
  });
  parts.push(Buffer.from(`],"total":${texts.length}}}`));
  return Buffer.concat(parts);
}
