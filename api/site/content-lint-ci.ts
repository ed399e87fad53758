/**
 * The content lint for a content repository's own CI (docs/github-review.md):
 * `.github/workflows/content-lint.yml` (shipped in the project's content/.github/) runs
 * `.github/content-lint/lint.mjs`, which is `scripts/lint-content.ts` bundled by esbuild with
 * everything it imports (the schemas, the loader, ajv, js-yaml, yaml) into one ES module for
 * Node >= 20.
 *
 * Decision: bundle, not install. The content repository's CI then needs no npm install, no
 * checkout of the archive and no network at all beyond its own checkout, and the lint it runs is
 * exactly the archive's (same schemas, same messages). The bundle is generated, never committed
 * in this project (it would go stale with every schema change): the server writes it into a
 * content repository it seeds when review runs on GitHub (scripts/serve.ts), and
 * `npm run content-lint:install -- <dir>` writes or refreshes it in any checkout (when GitHub
 * review is switched on later, and after upgrading the archive).
 */
import { mkdirSync, copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CONTENT_LINT_WORKFLOW = '.github/workflows/content-lint.yml';
export const CONTENT_LINT_BUNDLE = '.github/content-lint/lint.mjs';

/** The shipped workflow file (content/.github/workflows/content-lint.yml). */
export const CONTENT_LINT_WORKFLOW_SOURCE = path.join(PROJECT_ROOT, 'content', CONTENT_LINT_WORKFLOW);

/** The lint bundled into one ES module (bytes), with a header naming its source. */
export async function bundleContentLint(): Promise<string> {
  // Loaded only when a bundle is made (esbuild is a dependency of the build tooling anyway).
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(PROJECT_ROOT, 'scripts', 'lint-content.ts')],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    banner: {
      js: [
        "// The Public-Domain Music Archive's content lint (scripts/lint-content.ts and what it imports),",
        "// bundled into one file for this repository's CI. Generated: do not edit; refresh it with",
        '// `npm run content-lint:install -- <checkout>` in the archive. Usage: node lint.mjs . --base <ref> --format github',
        // Bundled CommonJS dependencies (ajv) call require() for Node built-ins.
        'import { createRequire as __pdmaCreateRequire } from "node:module"; const require = __pdmaCreateRequire(import.meta.url);',
      ].join('\n'),
    },
  });
  return result.outputFiles[0]!.text;
}

/**
 * Write the workflow and the bundled lint into a content repository folder (a checkout or a
 * seed being prepared). Returns the paths written, relative to `dir`.
 */
export async function writeContentLintCi(dir: string): Promise<string[]> {
  const bundle = await bundleContentLint();
  const workflow = path.join(dir, CONTENT_LINT_WORKFLOW);
  const lint = path.join(dir, CONTENT_LINT_BUNDLE);
  mkdirSync(path.dirname(workflow), { recursive: true });
  mkdirSync(path.dirname(lint), { recursive: true });
  if (path.resolve(workflow) !== path.resolve(CONTENT_LINT_WORKFLOW_SOURCE))
    copyFileSync(CONTENT_LINT_WORKFLOW_SOURCE, workflow);
  writeFileSync(lint, bundle);
  return [CONTENT_LINT_WORKFLOW, CONTENT_LINT_BUNDLE];
}
