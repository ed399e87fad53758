/**
 * The address of a running archive for every command-line tool (review, archive, mcp, the
 * example agent): `--server URL` where a tool takes options, else ARCHIVE_BASE_URL, else
 * http://localhost:4321. ARCHIVE_SERVER_URL, which the archive CLI read first, is kept as an
 * alias. When the server cannot be reached, the error names the address tried, where it came
 * from and how to change it, instead of "fetch failed".
 */
export const DEFAULT_SERVER = 'http://localhost:4321';

export interface ServerAddress {
  url: string;
  /** Where the address came from: "--server", "ARCHIVE_BASE_URL", "ARCHIVE_SERVER_URL" or "the default". */
  from: string;
}

export function serverAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ServerAddress {
  const pick =
    flag !== undefined
      ? { raw: flag, from: '--server' }
      : env.ARCHIVE_BASE_URL?.trim()
        ? { raw: env.ARCHIVE_BASE_URL.trim(), from: 'ARCHIVE_BASE_URL' }
        : env.ARCHIVE_SERVER_URL?.trim()
          ? { raw: env.ARCHIVE_SERVER_URL.trim(), from: 'ARCHIVE_SERVER_URL' }
          : { raw: DEFAULT_SERVER, from: 'the default' };
  let parsed: URL | null = null;
  try {
    parsed = new URL(pick.raw);
  } catch {
    // reported below
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    throw new Error(
      `the server address from ${pick.from} must be an absolute http(s) URL such as ${DEFAULT_SERVER} (got "${pick.raw}")`,
    );
  return { url: pick.raw.replace(/\/+$/, ''), from: pick.from };
}

/** The message for a request that never reached the server. */
export function unreachable(server: ServerAddress, err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; code?: string; message?: string };
  const why = e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? String(err);
  return (
    `could not reach the archive at ${server.url} (${why}; address from ${server.from}). ` +
    `Is it running there? Set ARCHIVE_BASE_URL (or pass --server URL) to the address of a running archive.`
  );
}
