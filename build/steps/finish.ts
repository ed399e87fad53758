/**
 * Step "finish": how the folder is served. A layer writes `layer.json` (its base, the files of its
 * delta, the base's files it deletes), its `base` link and its `deleted/` markers
 * (src/lib/site/layers.ts); a plain folder's `base` links to its own `client/`. Then `nginx.conf`
 * (nginx serves the same URLs), and the scratch folders go.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { NGINX_UPSTREAMS_FILE, nginxHasBrotliStatic, renderNginxConfig } from '../../api/site/nginx.ts';
import { LAYER_FORMAT, nextDeleted } from '../../src/domain/site-layers.ts';
import { filesBelow, writeLayerFiles, writePlainBaseLink } from '../../src/lib/site/layers.ts';
import type { Step } from '../runner.ts';
import { writeNew } from './rest.ts';

export const finish: Step = {
  name: 'finish',
  run(build) {
    const { plan } = build;
    const base = plan.base;
    if (base?.kind === 'layer') {
      const files = filesBelow(plan.clientDir).sort();
      build.layer = {
        format: LAYER_FORMAT,
        base: path.basename(base.layer ? path.dirname(base.view.base!) : base.dir),
        files,
        deleted: nextDeleted(base.layer?.deleted ?? [], build.removedBase, new Set(files)),
      };
      // The base layer's markers were linked beside its delta (the beside step's "link").
      writeLayerFiles(plan.outDir, build.layer, base.layer?.deleted ?? []);
    } else if (base) writePlainBaseLink(plan.outDir);
    const { options } = plan;
    writeNew(
      path.join(plan.outDir, 'nginx.conf'),
      renderNginxConfig(options.nginxRoot ? path.resolve(options.nginxRoot) : plan.clientDir, {
        blobsDir: options.blobsDir ? path.resolve(options.blobsDir) : undefined,
        // A build the server made roots at ARCHIVE_DATA_DIR/current/client: its processes are in
        // ARCHIVE_DATA_DIR/nginx-upstreams.conf, which the server writes at every start.
        upstreamsFile: options.nginxRoot
          ? path.join(path.dirname(path.dirname(path.resolve(options.nginxRoot))), NGINX_UPSTREAMS_FILE)
          : undefined,
        // nginx serves this folder on this machine: brotli when its nginx has the module.
        brotliStatic: nginxHasBrotliStatic(),
      }),
    );
    for (const scratch of [path.join(plan.outDir, '.partial'), build.scoresDir, build.searchScratch])
      rmSync(scratch, { recursive: true, force: true });
  },
};
