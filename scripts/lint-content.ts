/**
 * `npm run lint:content [path]`: check a content repository against the schemas and cross-file
 * rules, one "file: /field: message" line per problem; exit 1 when there is any. The build runs
 * the same checks and refuses to publish content that fails them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatLintMessage, loadCatalog } from '../src/domain/catalog.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.resolve(process.argv[2] ?? path.join(root, 'content'));
const { catalog, messages } = loadCatalog(target);
if (messages.length > 0) {
  for (const m of messages) console.error(formatLintMessage(m));
  console.error(`\n${messages.length} problem(s) in ${target}`);
  process.exit(1);
}
console.log(`content OK: ${catalog.works.length} works, ${catalog.profiles.length} profiles, ${catalog.instruments.length} instruments in ${target}`);
