/**
 * Which forge reviews run on (DESIGN.md 2.6): GitHub when GITHUB_TOKEN and GITHUB_REPOSITORY are
 * both set (GITHUB_API_URL overrides the API base), the local git forge otherwise. The GitHub
 * forge still merges into the local content repository, so it is given the local forge.
 */
import type { Forge } from './types.ts';
import type { LocalForge } from './forge-local.ts';

export interface GitHubForgeOptions {
  token: string;
  repository: string;
  apiUrl: string | undefined;
  local: LocalForge;
}

export function wantsGitHub(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.GITHUB_TOKEN?.trim() && env.GITHUB_REPOSITORY?.trim());
}

export async function createForge(env: NodeJS.ProcessEnv, local: LocalForge): Promise<Forge> {
  if (!wantsGitHub(env)) return local;
  // Imported only when configured (and by a computed name, so the local forge never needs Octokit).
  const specifier = './forge-github.ts';
  const mod = (await import(specifier)) as { GitHubForge: new (options: GitHubForgeOptions) => Forge };
  return new mod.GitHubForge({ token: env.GITHUB_TOKEN!.trim(), repository: env.GITHUB_REPOSITORY!.trim(), apiUrl: env.GITHUB_API_URL?.trim() || undefined, local });
}
