/**
 * `npm run content-lint:install -- <content repository checkout>`: write (or refresh)
 * `.github/workflows/content-lint.yml` and the bundled lint `.github/content-lint/lint.mjs` there,
 * so the repository's pull requests are linted on GitHub (docs/github-review.md). Commit both
 * files in that repository afterwards. Run it again after upgrading the archive.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeContentLintCi } from '../api/site/content-lint-ci.ts';

const target = process.argv[2];
if (!target || process.argv.length > 3) {
  console.error('usage: npm run content-lint:install -- <content repository checkout>');
  process.exit(2);
}
const dir = path.resolve(target);
if (!existsSync(dir) || !statSync(dir).isDirectory()) {
  console.error(`content-lint:install: no such directory: ${dir}`);
  process.exit(2);
}
const written = await writeContentLintCi(dir);
for (const f of written) console.log(`wrote ${path.join(dir, f)}`);
console.log(`now commit them in ${dir} (git add .github && git commit -m "Content lint on pull requests")`);
