/**
 * Runtime configuration from the environment (DESIGN.md 4). Every value has a default that runs
 * the sample catalog locally; a bad value stops the start with a message naming the variable.
 */
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Origin of every absolute link, without a trailing slash. */
  publicBaseUrl: string;
  dataDir: string;
  /** The content repository the service builds and reviews. */
  contentRepo: string;
  /** The shipped seed catalog, copied into contentRepo on first start. */
  seedContentDir: string;
  libraryKeys: string[];
  curatorKeys: string[];
  adminKeys: string[];
  logLevel: string;
  /** Largest file a library import may declare, in bytes (ARCHIVE_LIBRARY_MAX_FILE_BYTES). */
  libraryMaxFileBytes: number;
}

export class ConfigError extends Error {}

function keys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}

export function loadConfig(env: NodeJS.ProcessEnv, projectRoot: string): Config {
  const port = Number(env.PORT ?? '4321');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${env.PORT}")`);
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? 'http://localhost:4321').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(publicBaseUrl);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL (got "${env.PUBLIC_BASE_URL}")`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an origin such as https://archive.example.org, without a path (got "${env.PUBLIC_BASE_URL}")`);
  }
  const dataDir = path.resolve(projectRoot, env.ARCHIVE_DATA_DIR ?? 'data');
  const maxFile = env.ARCHIVE_LIBRARY_MAX_FILE_BYTES === undefined ? 4 * 1024 ** 3 : Number(env.ARCHIVE_LIBRARY_MAX_FILE_BYTES);
  if (!Number.isSafeInteger(maxFile) || maxFile < 0) {
    throw new ConfigError(`ARCHIVE_LIBRARY_MAX_FILE_BYTES must be a whole number of bytes (got "${env.ARCHIVE_LIBRARY_MAX_FILE_BYTES}")`);
  }
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    publicBaseUrl,
    dataDir,
    contentRepo: path.resolve(projectRoot, env.ARCHIVE_CONTENT_REPO ?? path.join(dataDir, 'content')),
    seedContentDir: path.join(projectRoot, 'content'),
    libraryKeys: keys(env.ARCHIVE_LIBRARY_KEYS),
    curatorKeys: keys(env.ARCHIVE_CURATOR_KEYS),
    adminKeys: keys(env.ARCHIVE_ADMIN_KEYS),
    logLevel: env.LOG_LEVEL ?? 'info',
    libraryMaxFileBytes: maxFile,
  };
}
