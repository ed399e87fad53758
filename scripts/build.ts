/**
 * Builds the static site from a content repository:
 *   npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--reader-sign-in github|none] [--batch-works N]
 * The command line only: the build is a library (build/, docs/decisions/0067-the-build-is-a-library.md;
 * its options and exit codes: build/command.ts). Exit code 2 for a bad command line, 1 for content
 * errors or a failed build.
 */
import { buildMain } from '../build/command.ts';

buildMain().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
