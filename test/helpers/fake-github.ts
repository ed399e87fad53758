/**
 * A fake GitHub REST API for tests of the GitHub forge (api/forge/forge-github.ts): a local HTTP
 * server implementing exactly the endpoints the forge and the poll use, with the response shapes of
 * GitHub's REST docs (trimmed to the fields that matter), stateful (blobs, trees, commits, branches,
 * pull requests with labels, comments, merged/closed) and recording every call.
 *
 *   const gh = await startFakeGitHub({ token: 't', repository: 'acme/content' });
 *   new GitHubForge({ token: 't', repository: 'acme/content', apiUrl: gh.url, local });
 *   gh.pulls[0].labels; gh.calls; gh.mergeExternally(1); gh.failNext('PUT', /\/merge$/, 405, 'not mergeable');
 *   const pr = gh.openPullRequestAsPerson({ author: 'carol', branch: 'fix', title: 'Fix', files: { 'works/x/index.md': '...' } });
 *   gh.pushToPullRequest(pr.number, { 'works/x/index.md': '...' }); gh.pullRequestPayload(pr.number, 'synchronize');
 *   await gh.close();
 *
 * Requests without `Authorization: token <token>` (or Bearer) answer 401 as GitHub does. With
 * `app`, `POST /app/installations/{id}/access_tokens` checks the app's RS256 JWT (signature with
 * the public key, issuer, expiry) and answers an installation token that authenticates like the
 * token until `expireInstallationTokens()`.
 */
import { createHash, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePull {
  number: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  headSha: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: string | null;
  closedAt: string | null;
  mergeCommitSha: string | null;
  labels: string[];
  comments: string[];
  createdAt: string;
  updatedAt: string;
  /** Who opened it (the token's user for pull requests the archive opens). */
  author: string;
  /** The base commit it was opened on (its changed files are listed against it). */
  baseSha: string;
}

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface FakeGitHub {
  url: string;
  calls: FakeCall[];
  pulls: FakePull[];
  /** Branch name -> commit sha. */
  refs: Map<string, string>;
  /** Files of a commit: path -> content. */
  filesAt(commitSha: string): Map<string, string>;
  /** Merge / close a PR as an editor would on github.com (no webhook is sent). */
  mergeExternally(number: number): void;
  closeExternally(number: number): void;
  /** The next request matching method and path answers this error once. */
  failNext(method: string, path: RegExp, status: number, message: string): void;
  /** Installation tokens minted so far (GitHub App mode), oldest first. */
  installationTokens: string[];
  /** Every installation token minted so far stops authenticating (401 "Bad credentials"). */
  expireInstallationTokens(): void;
  /** Move the clock the app JWTs and token expiries are judged by (GitHub App mode). */
  advanceClock(ms: number): void;
  /** A person's pull request: a branch with one commit changing `files` (null removes) on the default branch. */
  openPullRequestAsPerson(options: {
    author: string;
    branch: string;
    title: string;
    files: Record<string, string | null>;
  }): FakePull;
  /** A further commit on a pull request's branch; returns the new head sha. */
  pushToPullRequest(number: number, files: Record<string, string | null>): string;
  /** The payload GitHub sends for a `pull_request` event of this pull request. */
  pullRequestPayload(number: number, action: string): Record<string, unknown>;
  close(): Promise<void>;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const sha1 = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function startFakeGitHub(options: {
  token: string;
  repository: string;
  defaultBranch?: string;
  /** A GitHub App that may mint installation tokens for this repository's installation. */
  app?: { id: string; installationId: string; publicKey: string };
}): Promise<FakeGitHub> {
  const installationTokens: string[] = [];
  const liveInstallationTokens = new Set<string>();
  let clockOffsetMs = 0;
  const [owner, name] = options.repository.split('/') as [string, string];
  const defaultBranch = options.defaultBranch ?? 'main';
  const blobs = new Map<string, Buffer>();
  const trees = new Map<string, Map<string, string>>();
  const commits = new Map<string, { tree: string; parents: string[]; message: string }>();
  const refs = new Map<string, string>();
  const pulls: FakePull[] = [];
  const calls: FakeCall[] = [];
  const failures: { method: string; path: RegExp; status: number; message: string }[] = [];
  let url = '';
  let nextId = 1000;

  // The repository starts with one commit holding a README.
  const readme = Buffer.from('# content\n');
  const readmeSha = sha1('blob', readme);
  blobs.set(readmeSha, readme);
  const rootTree = sha1('tree', readmeSha);
  trees.set(rootTree, new Map([['README.md', readmeSha]]));
  const rootCommit = sha1('commit', rootTree);
  commits.set(rootCommit, { tree: rootTree, parents: [], message: 'Initial commit' });
  refs.set(defaultBranch, rootCommit);

  const api = (p: string) => `${url}/repos/${owner}/${name}${p}`;
  const html = (p: string) => `https://github.com/${owner}/${name}${p}`;
  const user = { login: 'archive-bot', id: 1, type: 'User' };
  const userJson = (login: string) =>
    login === user.login
      ? user
      : { login, id: 100 + [...login].reduce((a, c) => a + c.charCodeAt(0), 0), type: 'User' };
  const repoJson = () => ({
    id: 1,
    node_id: 'R_1',
    name,
    full_name: `${owner}/${name}`,
    owner: { login: owner, id: 2, type: 'Organization' },
    private: false,
    html_url: html(''),
    url: api(''),
    default_branch: defaultBranch,
  });
  const refJson = (branch: string) => ({
    ref: `refs/heads/${branch}`,
    node_id: `REF_${branch}`,
    url: api(`/git/refs/heads/${branch}`),
    object: { sha: refs.get(branch)!, type: 'commit', url: api(`/git/commits/${refs.get(branch)}`) },
  });
  const labelJson = (label: string) => ({
    id: [...label].reduce((a, c) => a * 31 + c.charCodeAt(0), 7) % 1e9,
    node_id: `L_${label}`,
    url: api(`/labels/${encodeURIComponent(label)}`),
    name: label,
    color: 'ededed',
    default: false,
    description: null,
  });
  const pullJson = (pr: FakePull) => ({
    url: api(`/pulls/${pr.number}`),
    id: pr.number + 5000,
    node_id: `PR_${pr.number}`,
    html_url: html(`/pull/${pr.number}`),
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: userJson(pr.author),
    body: pr.body,
    labels: pr.labels.map(labelJson),
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha,
    head: { label: `${owner}:${pr.head}`, ref: pr.head, sha: pr.headSha, user: userJson(pr.author), repo: repoJson() },
    base: { label: `${owner}:${pr.base}`, ref: pr.base, sha: refs.get(pr.base) ?? '', user, repo: repoJson() },
    merged: pr.merged,
    mergeable: pr.state === 'open' ? true : null,
    draft: false,
  });
  /** `map`'s value for `key`, or GitHub's 404. */
  const found = <V>(map: Map<string, V>, key: string): V => {
    const value = map.get(key);
    if (value === undefined) throw new HttpError(404, 'Not Found');
    return value;
  };
  /** A commit as the git data API answers it, reading or creating it. */
  const commitJson = (sha: string, c: { tree: string; parents: string[]; message: string }) => ({
    sha,
    node_id: `C_${sha}`,
    url: api(`/git/commits/${sha}`),
    html_url: html(`/commit/${sha}`),
    message: c.message,
    tree: { sha: c.tree, url: api(`/git/trees/${c.tree}`) },
    parents: c.parents.map((s) => ({ sha: s, url: api(`/git/commits/${s}`), html_url: html(`/commit/${s}`) })),
  });
  /** Open a pull request of `head` (at `headSha`) into `base` (at `baseSha`): the next number, no labels, no comments. */
  const openPull = (
    fields: Pick<FakePull, 'title' | 'body' | 'head' | 'base' | 'headSha' | 'baseSha' | 'author'>,
  ): FakePull => {
    const pr: FakePull = {
      number: pulls.length + 1,
      ...fields,
      state: 'open',
      merged: false,
      mergedAt: null,
      closedAt: null,
      mergeCommitSha: null,
      labels: [],
      comments: [],
      createdAt: now(),
      updatedAt: now(),
    };
    pulls.push(pr);
    return pr;
  };
  const pullOf = (n: string) => {
    const pr = pulls.find((p) => p.number === Number(n));
    if (!pr) throw new HttpError(404, 'Not Found');
    return pr;
  };
  const touch = (pr: FakePull) => {
    pr.updatedAt = now();
  };
  const merge = (pr: FakePull) => {
    const baseSha = refs.get(pr.base)!;
    // Files of the base overlaid with the branch's: enough for the tests' non-conflicting changes.
    const files = new Map([...trees.get(commits.get(baseSha)!.tree)!, ...trees.get(commits.get(pr.headSha)!.tree)!]);
    const tree = sha1('tree', ...[...files].flat());
    trees.set(tree, files);
    const commit = sha1('merge', baseSha, pr.headSha);
    commits.set(commit, { tree, parents: [baseSha, pr.headSha], message: `Merge pull request #${pr.number}` });
    refs.set(pr.base, commit);
    Object.assign(pr, { state: 'closed', merged: true, mergedAt: now(), closedAt: now(), mergeCommitSha: commit });
    touch(pr);
    return commit;
  };

  type Handler = (
    m: RegExpExecArray,
    body: any,
    query: Record<string, string>,
  ) => [number, unknown, Record<string, string>?];
  const R = (method: string, pattern: string, handler: Handler) => ({
    method,
    re: new RegExp(`^/repos/${owner}/${name}${pattern}$`),
    handler,
  });
  const routes = [
    R('GET', '', () => [200, repoJson()]),
    R('GET', '/git/ref/heads/(.+)', (m) => {
      if (!refs.has(m[1]!)) throw new HttpError(404, 'Not Found');
      return [200, refJson(m[1]!)];
    }),
    R('GET', '/git/commits/([0-9a-f]{40})', (m) => {
      return [
        200,
        {
          ...commitJson(m[1]!, found(commits, m[1]!)),
          author: { name: 'bot', email: 'bot@example.org', date: now() },
          committer: { name: 'bot', email: 'bot@example.org', date: now() },
          verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
        },
      ];
    }),
    R('POST', '/git/blobs', (_m, body) => {
      if (typeof body?.content !== 'string')
        throw new HttpError(422, 'Invalid request.\n\n"content" wasn\'t supplied.');
      const bytes =
        body.encoding === 'base64' ? Buffer.from(body.content, 'base64') : Buffer.from(body.content, 'utf8');
      const sha = sha1('blob', bytes);
      blobs.set(sha, bytes);
      return [201, { sha, url: api(`/git/blobs/${sha}`) }];
    }),
    R('POST', '/git/trees', (_m, body) => {
      const base = body.base_tree ? trees.get(body.base_tree) : new Map<string, string>();
      if (!base) throw new HttpError(422, 'base_tree is not a valid tree');
      const files = new Map(base);
      for (const e of body.tree as { path: string; sha: string | null }[]) {
        if (e.sha === null) files.delete(e.path);
        else if (!blobs.has(e.sha)) throw new HttpError(422, `tree.sha ${e.sha} is not a valid blob`);
        else files.set(e.path, e.sha);
      }
      const sha = sha1('tree', ...[...files].sort().flat());
      trees.set(sha, files);
      return [
        201,
        {
          sha,
          url: api(`/git/trees/${sha}`),
          truncated: false,
          tree: [...files].map(([p, s]) => ({
            path: p,
            mode: '100644',
            type: 'blob',
            sha: s,
            size: blobs.get(s)!.length,
            url: api(`/git/blobs/${s}`),
          })),
        },
      ];
    }),
    R('POST', '/git/commits', (_m, body) => {
      if (!trees.has(body.tree)) throw new HttpError(422, 'Tree SHA does not exist');
      for (const p of body.parents as string[])
        if (!commits.has(p)) throw new HttpError(422, 'Parent SHA does not exist or is not a commit object');
      const sha = sha1('commit', body.tree, ...(body.parents as string[]), body.message, String(nextId++));
      const commit = { tree: body.tree, parents: body.parents, message: body.message };
      commits.set(sha, commit);
      return [201, commitJson(sha, commit)];
    }),
    R('POST', '/git/refs', (_m, body) => {
      const branch = /^refs\/heads\/(.+)$/.exec(body.ref ?? '')?.[1];
      if (!branch) throw new HttpError(422, 'Reference name must start with refs/ and have at least two slashes.');
      if (refs.has(branch)) throw new HttpError(422, 'Reference already exists');
      if (!commits.has(body.sha)) throw new HttpError(422, 'Object does not exist');
      refs.set(branch, body.sha);
      return [201, refJson(branch)];
    }),
    R('PATCH', '/git/refs/heads/(.+)', (m, body) => {
      if (!refs.has(m[1]!)) throw new HttpError(422, 'Reference does not exist');
      refs.set(m[1]!, body.sha);
      for (const pr of pulls) if (pr.head === m[1] && pr.state === 'open') pr.headSha = body.sha;
      return [200, refJson(m[1]!)];
    }),
    R('GET', '/pulls', (_m, _b, q) => {
      const state = q.state ?? 'open';
      let list = pulls.filter((p) => state === 'all' || p.state === state);
      if (q.head) list = list.filter((p) => `${owner}:${p.head}` === q.head);
      if (q.base) list = list.filter((p) => p.base === q.base);
      const key = q.sort === 'updated' ? 'updatedAt' : 'createdAt';
      list = [...list].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.number - b.number));
      if ((q.direction ?? (q.sort ? 'desc' : 'desc')) === 'desc') list.reverse();
      const perPage = Math.min(Number(q.per_page ?? 30), 100);
      const page = Number(q.page ?? 1);
      const slice = list.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (page * perPage < list.length) {
        const next = new URLSearchParams({ ...q, page: String(page + 1) });
        headers.Link = `<${api(`/pulls?${next}`)}>; rel="next"`;
      }
      return [200, slice.map(pullJson), headers];
    }),
    R('POST', '/pulls', (_m, body) => {
      if (!refs.has(body.head)) throw new HttpError(422, `Validation Failed: head ${body.head} does not exist`);
      if (pulls.some((p) => p.head === body.head && p.state === 'open'))
        throw new HttpError(422, `Validation Failed: A pull request already exists for ${owner}:${body.head}.`);
      const pr = openPull({
        title: body.title,
        body: body.body ?? null,
        head: body.head,
        base: body.base,
        headSha: refs.get(body.head)!,
        author: user.login,
        baseSha: refs.get(body.base)!,
      });
      return [201, pullJson(pr)];
    }),
    R('GET', '/pulls/(\\d+)', (m) => [200, pullJson(pullOf(m[1]!))]),
    R('GET', '/pulls/(\\d+)/files', (m, _b, q) => {
      const pr = pullOf(m[1]!);
      const before = trees.get(commits.get(pr.baseSha)!.tree)!;
      const after = trees.get(commits.get(pr.headSha)!.tree)!;
      const files: Record<string, unknown>[] = [];
      for (const p of [...new Set([...before.keys(), ...after.keys()])].sort()) {
        const a = before.get(p);
        const b = after.get(p);
        if (a === b) continue;
        const status = a === undefined ? 'added' : b === undefined ? 'removed' : 'modified';
        const sha = (b ?? a)!;
        files.push({
          sha,
          filename: p,
          status,
          additions: 1,
          deletions: 0,
          changes: 1,
          blob_url: html(`/blob/${pr.headSha}/${p}`),
          raw_url: html(`/raw/${pr.headSha}/${p}`),
          contents_url: api(`/contents/${p}?ref=${pr.headSha}`),
        });
      }
      const perPage = Math.min(Number(q.per_page ?? 30), 100);
      const page = Number(q.page ?? 1);
      return [200, files.slice((page - 1) * perPage, page * perPage)];
    }),
    R('GET', '/git/blobs/([0-9a-f]{40})', (m) => {
      const bytes = found(blobs, m[1]!);
      return [
        200,
        {
          sha: m[1],
          node_id: `B_${m[1]}`,
          url: api(`/git/blobs/${m[1]}`),
          size: bytes.length,
          content: bytes.toString('base64').replace(/(.{60})/g, '$1\n'),
          encoding: 'base64',
        },
      ];
    }),
    R('PATCH', '/pulls/(\\d+)', (m, body) => {
      const pr = pullOf(m[1]!);
      if (body.state === 'closed' && pr.state === 'open') Object.assign(pr, { state: 'closed', closedAt: now() });
      if (body.title) pr.title = body.title;
      touch(pr);
      return [200, pullJson(pr)];
    }),
    R('PUT', '/pulls/(\\d+)/merge', (m, body) => {
      const pr = pullOf(m[1]!);
      if (pr.state !== 'open') throw new HttpError(405, 'Pull Request is not mergeable');
      if (body?.merge_method && !['merge', 'squash', 'rebase'].includes(body.merge_method))
        throw new HttpError(422, 'Invalid merge_method');
      const sha = merge(pr);
      return [200, { sha, merged: true, message: 'Pull Request successfully merged' }];
    }),
    R('GET', '/issues/(\\d+)/labels', (m) => [200, pullOf(m[1]!).labels.map(labelJson)]),
    R('POST', '/issues/(\\d+)/labels', (m, body) => {
      const pr = pullOf(m[1]!);
      pr.labels = [...new Set([...pr.labels, ...(body.labels as string[])])];
      touch(pr);
      return [200, pr.labels.map(labelJson)];
    }),
    R('PUT', '/issues/(\\d+)/labels', (m, body) => {
      const pr = pullOf(m[1]!);
      pr.labels = [...new Set(body.labels as string[])];
      touch(pr);
      return [200, pr.labels.map(labelJson)];
    }),
    R('DELETE', '/issues/(\\d+)/labels/(.+)', (m) => {
      const pr = pullOf(m[1]!);
      if (!pr.labels.includes(m[2]!)) throw new HttpError(404, 'Label does not exist');
      pr.labels = pr.labels.filter((l) => l !== m[2]);
      return [200, pr.labels.map(labelJson)];
    }),
    R('POST', '/issues/(\\d+)/comments', (m, body) => {
      const pr = pullOf(m[1]!);
      pr.comments.push(body.body);
      touch(pr);
      const id = nextId++;
      return [
        201,
        {
          id,
          node_id: `IC_${id}`,
          url: api(`/issues/comments/${id}`),
          html_url: html(`/pull/${pr.number}#issuecomment-${id}`),
          body: body.body,
          user,
          created_at: now(),
          updated_at: now(),
        },
      ];
    }),
  ];

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'X-GitHub-Media-Type': 'github.v3; format=json',
      ...headers,
    });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    // Octokit percent-encodes path parameters ("heads%2Freview%2FABC", "status%3A%20pending").
    const p = decodeURIComponent(u.pathname);
    const query = Object.fromEntries(u.searchParams);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    if (text) body = JSON.parse(text);
    const method = req.method ?? 'GET';
    calls.push({ method, path: p, query, body });
    const auth = req.headers.authorization ?? '';
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(p);
    if (mint && method === 'POST') {
      const jwt = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(auth);
      const claims = jwt
        ? (JSON.parse(Buffer.from(jwt[2]!, 'base64url').toString('utf8')) as {
            iss?: unknown;
            exp?: number;
            iat?: number;
          })
        : null;
      const signed =
        jwt && options.app
          ? verify(
              'sha256',
              Buffer.from(`${jwt[1]}.${jwt[2]}`),
              options.app.publicKey,
              Buffer.from(jwt[3]!, 'base64url'),
            )
          : false;
      const nowS = (Date.now() + clockOffsetMs) / 1000;
      if (
        !signed ||
        !claims ||
        String(claims.iss) !== options.app!.id ||
        !(claims.exp! > nowS) ||
        !(claims.iat! <= nowS) ||
        claims.exp! - claims.iat! > 600
      ) {
        return send(res, 401, {
          message: 'A JSON web token could not be decoded',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        });
      }
      if (mint[1] !== options.app!.installationId)
        return send(res, 404, {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest',
          status: '404',
        });
      const token = `ghs_fake${installationTokens.length + 1}`;
      installationTokens.push(token);
      liveInstallationTokens.add(token);
      return send(res, 201, {
        token,
        expires_at: new Date(Date.now() + clockOffsetMs + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: { contents: 'write', pull_requests: 'write', issues: 'write', metadata: 'read' },
        repository_selection: 'selected',
      });
    }
    const installationToken = /^token (ghs_\w+)$/.exec(auth)?.[1];
    if (installationToken && liveInstallationTokens.has(installationToken)) {
      // An installation token of the app: authenticated.
    } else if (auth !== `token ${options.token}` && auth !== `Bearer ${options.token}`) {
      return send(res, 401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      });
    }
    const failure = failures.findIndex((f) => f.method === method && f.path.test(p));
    if (failure !== -1) {
      const [f] = failures.splice(failure, 1);
      return send(res, f!.status, {
        message: f!.message,
        documentation_url: 'https://docs.github.com/rest',
        status: String(f!.status),
      });
    }
    for (const r of routes) {
      if (r.method !== method) continue;
      const m = r.re.exec(p);
      if (!m) continue;
      try {
        const [status, out, headers] = r.handler(m, body, query);
        return send(res, status, out, headers);
      } catch (err) {
        if (err instanceof HttpError)
          return send(res, err.status, {
            message: err.message,
            documentation_url: 'https://docs.github.com/rest',
            status: String(err.status),
          });
        throw err;
      }
    }
    send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
  };

  /** A commit on `parent` with `files` written (null removes); returns its sha. */
  const commitFiles = (parent: string, files: Record<string, string | null>, message: string): string => {
    const tree = new Map(trees.get(commits.get(parent)!.tree)!);
    for (const [p, content] of Object.entries(files)) {
      if (content === null) {
        tree.delete(p);
        continue;
      }
      const bytes = Buffer.from(content, 'utf8');
      const sha = sha1('blob', bytes);
      blobs.set(sha, bytes);
      tree.set(p, sha);
    }
    const treeSha = sha1('tree', ...[...tree].sort().flat());
    trees.set(treeSha, tree);
    const sha = sha1('commit', treeSha, parent, message, String(nextId++));
    commits.set(sha, { tree: treeSha, parents: [parent], message });
    return sha;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => send(res, 500, { message: err.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    calls,
    pulls,
    refs,
    filesAt(commitSha) {
      const c = commits.get(commitSha);
      if (!c) throw new Error(`no commit ${commitSha}`);
      return new Map([...trees.get(c.tree)!].map(([p, s]) => [p, blobs.get(s)!.toString('utf8')]));
    },
    mergeExternally(number) {
      merge(pullOf(String(number)));
    },
    closeExternally(number) {
      const pr = pullOf(String(number));
      Object.assign(pr, { state: 'closed', closedAt: now() });
      touch(pr);
    },
    failNext(method, path, status, message) {
      failures.push({ method, path, status, message });
    },
    installationTokens,
    expireInstallationTokens() {
      liveInstallationTokens.clear();
    },
    advanceClock(ms) {
      clockOffsetMs += ms;
    },
    openPullRequestAsPerson({ author, branch, title, files }) {
      const base = refs.get(defaultBranch)!;
      const head = commitFiles(base, files, title);
      refs.set(branch, head);
      return openPull({ title, body: null, head: branch, base: defaultBranch, headSha: head, author, baseSha: base });
    },
    pushToPullRequest(number, files) {
      const pr = pullOf(String(number));
      pr.headSha = commitFiles(pr.headSha, files, 'more changes');
      refs.set(pr.head, pr.headSha);
      touch(pr);
      return pr.headSha;
    },
    pullRequestPayload(number, action) {
      const pr = pullOf(String(number));
      return { action, number, pull_request: pullJson(pr), repository: repoJson(), sender: userJson(pr.author) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
