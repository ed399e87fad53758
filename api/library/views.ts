/**
 * Stored library records -> the response bodies of the API (schemas in src/schemas/library.ts),
 * with absolute links from PUBLIC_BASE_URL. Pure apart from the received-bytes figures the
 * caller passes in.
 */
import type {
  LibraryCommitResult,
  LibraryImport,
  LibraryImportFile,
  LibraryPublication,
  LibraryTrack,
  LibraryTrackSummary,
} from '../../src/schemas/library.ts';
import type { StoredFile, StoredImport, StoredPublication, StoredTrack } from '../../src/domain/library/model.ts';
import { fileStatus } from '../../src/domain/library/states.ts';
import { reviewStatusLabel } from '../../src/domain/review-states.ts';
import { urls } from '../../src/domain/records.ts';

export function libraryUrls(baseUrl: string) {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/v1/library`;
  const enc = encodeURIComponent;
  return {
    imports: `${base}/imports`,
    import: (id: string) => `${base}/imports/${id}`,
    commit: (id: string) => `${base}/imports/${id}/commit`,
    upload: (importId: string, fileId: string) => `${base}/imports/${importId}/files/${fileId}`,
    tracks: `${base}/tracks`,
    track: (stableKey: string) => `${base}/tracks/${enc(stableKey)}`,
    publish: (stableKey: string) => `${base}/tracks/${enc(stableKey)}/publish`,
    file: (fileId: string) => `${base}/files/${fileId}`,
  };
}

export function importFileView(
  baseUrl: string,
  rec: StoredImport,
  file: StoredFile,
  receivedBytes: number,
): LibraryImportFile {
  const u = libraryUrls(baseUrl);
  const received = rec.status === 'committed' ? file.byteLength : receivedBytes;
  return {
    id: file.id,
    fileName: file.fileName,
    originalRelativePath: file.originalRelativePath,
    kind: file.kind,
    contentType: file.contentType,
    byteLength: file.byteLength,
    sha256: file.sha256,
    downloadPolicy: file.downloadPolicy,
    metadata: file.metadata,
    receivedBytes: received,
    status: fileStatus(file, received),
    serverByteLength: file.verified?.byteLength ?? null,
    serverSha256: file.verified?.sha256 ?? null,
    lastMismatch: file.lastMismatch,
    links: { upload: u.upload(rec.id, file.id) },
  };
}

/** `received` maps file id -> bytes held in staging (ignored once committed). */
export function importView(
  baseUrl: string,
  rec: StoredImport,
  received: Map<string, number>,
  visibility: 'private' | 'public' = 'private',
): LibraryImport {
  const u = libraryUrls(baseUrl);
  const files = rec.files.map((f) => importFileView(baseUrl, rec, f, received.get(f.id) ?? 0));
  const t = rec.track;
  return {
    id: rec.id,
    idempotencyKey: rec.idempotencyKey,
    status: rec.status,
    createdAtUtc: rec.createdAtUtc,
    updatedAtUtc: rec.updatedAtUtc,
    committedAtUtc: rec.committedAtUtc,
    failureReason: rec.failureReason,
    track: {
      stableKey: t.stableKey,
      title: t.title,
      collection: t.collection,
      composer: t.composer,
      sourceType: t.sourceType,
      rightsStatus: t.rightsStatus,
      reviewStatus: t.reviewStatus,
      visibility,
    },
    files,
    totals: {
      files: files.length,
      byteLength: files.reduce((n, f) => n + f.byteLength, 0),
      receivedBytes: files.reduce((n, f) => n + f.receivedBytes, 0),
    },
    links: {
      self: u.import(rec.id),
      commit: u.commit(rec.id),
      track: rec.status === 'committed' ? u.track(t.stableKey) : null,
    },
  };
}

export function commitView(baseUrl: string, rec: StoredImport, visibility: 'private' | 'public'): LibraryCommitResult {
  const u = libraryUrls(baseUrl);
  return {
    importId: rec.id,
    status: 'committed',
    committedAtUtc: rec.committedAtUtc ?? rec.updatedAtUtc,
    stableKey: rec.track.stableKey,
    visibility,
    files: rec.files.map((f) => ({
      id: f.id,
      fileName: f.fileName,
      originalRelativePath: f.originalRelativePath,
      declaredByteLength: f.byteLength,
      declaredSha256: f.sha256,
      serverByteLength: f.verified!.byteLength,
      serverSha256: f.verified!.sha256,
      matched: f.verified!.byteLength === f.byteLength && f.verified!.sha256 === f.sha256,
    })),
    links: { import: u.import(rec.id), track: u.track(rec.track.stableKey) },
  };
}

export function publicationView(baseUrl: string, p: StoredPublication): LibraryPublication {
  const u = urls(baseUrl);
  return { ...p, links: { work: u.work(p.workSlug), workMarkdown: u.workMarkdown(p.workSlug) } };
}

export function trackView(baseUrl: string, track: StoredTrack, rec: StoredImport): LibraryTrack {
  const u = libraryUrls(baseUrl);
  const t = rec.track;
  return {
    stableKey: t.stableKey,
    title: t.title,
    collection: t.collection,
    sourceType: t.sourceType,
    rightsStatus: t.rightsStatus,
    license: t.license,
    reviewStatus: t.reviewStatus,
    reviewStatusLabel: reviewStatusLabel(t.reviewStatus),
    visibility: track.visibility,
    composer: t.composer,
    genre: t.genre,
    attribution: t.attribution,
    description: t.description,
    musicalKey: t.musicalKey,
    tags: t.tags,
    intendedUses: t.intendedUses,
    channelKeys: t.channelKeys,
    rightsEvidence: t.rightsEvidence,
    reproducibility: t.reproducibility,
    quality: t.quality,
    durationSeconds: t.durationSeconds,
    bpm: t.bpm,
    sourceCreatedAtUtc: t.sourceCreatedAtUtc,
    importId: rec.id,
    committedAtUtc: rec.committedAtUtc ?? rec.updatedAtUtc,
    publication: track.publication ? publicationView(baseUrl, track.publication) : null,
    files: rec.files.map((f) => ({
      id: f.id,
      fileName: f.fileName,
      originalRelativePath: f.originalRelativePath,
      kind: f.kind,
      contentType: f.contentType,
      byteLength: f.verified!.byteLength,
      sha256: f.verified!.sha256,
      // A library file carries its track's rights and review state (the file model has none of its own).
      rightsStatus: t.rightsStatus,
      reviewStatus: t.reviewStatus,
      reviewStatusLabel: reviewStatusLabel(t.reviewStatus),
      downloadPolicy: f.downloadPolicy,
      metadata: f.metadata,
      links: { download: u.file(f.id) },
    })),
    links: { self: u.track(t.stableKey), import: u.import(rec.id), publish: u.publish(t.stableKey) },
  };
}

export function trackSummaryView(baseUrl: string, track: StoredTrack, rec: StoredImport): LibraryTrackSummary {
  const t = rec.track;
  return {
    stableKey: t.stableKey,
    title: t.title,
    collection: t.collection,
    composer: t.composer,
    genre: t.genre,
    sourceType: t.sourceType,
    rightsStatus: t.rightsStatus,
    reviewStatus: t.reviewStatus,
    reviewStatusLabel: reviewStatusLabel(t.reviewStatus),
    visibility: track.visibility,
    durationSeconds: t.durationSeconds,
    intendedUses: t.intendedUses,
    channelKeys: t.channelKeys,
    fileCount: rec.files.length,
    totalBytes: rec.files.reduce((n, f) => n + f.byteLength, 0),
    committedAtUtc: rec.committedAtUtc ?? rec.updatedAtUtc,
    links: { self: libraryUrls(baseUrl).track(t.stableKey) },
  };
}
