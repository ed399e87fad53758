// Moved to api/content-repo.ts; kept so older imports keep working until they are updated.
export * from '../api/content-repo.ts';
