/**
 * Which forge reviews run on (docs/review.md, "Forge choice"): GitHub when GITHUB_REPOSITORY is set with GITHUB_TOKEN
 * or a GitHub App's variables (parsed in api/config.ts; GITHUB_API_URL overrides the API base), the
 * local git forge otherwise. The GitHub
 * forge still merges into the local content repository, so it is given the local forge.
 */
import type { Forge } from './types.ts';
import type { LocalForge } from './forge-local.ts';
import type { GitHubSettings } from '../config.ts';
// Type-only: erased at run time, so Octokit is still loaded only when GitHub is configured.
import type { GitHubForgeOptions } from './forge-github.ts';

export async function createForge(github: GitHubSettings | null, local: LocalForge): Promise<Forge> {
  if (!github) return local;
  // Imported only when configured (and by a computed name, so the local forge never needs Octokit).
  const specifier = './forge-github.ts';
  const mod = (await import(specifier)) as { GitHubForge: new (options: GitHubForgeOptions) => Forge };
  return new mod.GitHubForge({ ...github, local });
}
