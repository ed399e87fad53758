/**
 * `npm start`. Turns on Node's on-disk compile cache before anything else is loaded, then runs
 * scripts/serve.ts. Most of a warm restart is compiling the server's modules (Fastify, ajv,
 * TypeBox, the MCP SDK and our own TypeScript, type-stripped); with the cache a restart reuses the
 * compiled code. The cache lives in Node's default place (`$TMPDIR/node-compile-cache`, or
 * NODE_COMPILE_CACHE), never in the project tree; Node versions without the API just skip it.
 */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./serve.ts');
