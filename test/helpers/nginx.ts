/**
 * Debian's nginx run from a test's own folder (`prefix`): the given `server { ... }` block wrapped
 * in a minimal main configuration (no daemon, one worker, temp paths inside the folder, the brotli
 * module loaded when the block uses it), checked with `nginx -t`, started, and waited for until it
 * answers `/api/v1`. Installed by the project's scripts when missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEBIAN_BROTLI_STATIC_MODULE } from '../../api/site/nginx.ts';
import { findOrInstallNginx } from '../../bench/lib/nginx.ts';
import { TrackedProcess } from '../../bench/lib/util.ts';

export interface TestNginx {
  /** `http://127.0.0.1:<port>` of the server block's listen address. */
  front: string;
  process: TrackedProcess;
  stop(): Promise<void>;
}

export async function startNginx(prefix: string, port: number, serverBlock: string): Promise<TestNginx> {
  const bin = findOrInstallNginx(() => undefined);
  if (!bin.path) throw new Error(`this test needs Debian's nginx: ${bin.note}`);
  const modules = /^\s*brotli_static on;/m.test(serverBlock) ? `load_module ${DEBIAN_BROTLI_STATIC_MODULE};\n` : '';
  mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
  const tmp = (n: string) => path.join(prefix, 'tmp', n);
  const errorLog = path.join(prefix, 'error.log');
  writeFileSync(
    path.join(prefix, 'nginx.conf'),
    // As root, nginx's workers would run as nobody, who may not read the test's private temp folder.
    `${modules}daemon off;\n${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;\npid ${path.join(prefix, 'nginx.pid')};\nerror_log ${errorLog} warn;\nevents { worker_connections 256; }\n` +
      `http {\n access_log off;\n sendfile on;\n client_body_temp_path ${tmp('body')};\n proxy_temp_path ${tmp('proxy')};\n fastcgi_temp_path ${tmp('fastcgi')};\n uwsgi_temp_path ${tmp('uwsgi')};\n scgi_temp_path ${tmp('scgi')};\n${serverBlock}\n}\n`,
  );
  const args = ['-p', prefix, '-e', errorLog, '-c', path.join(prefix, 'nginx.conf')];
  execFileSync(bin.path, ['-t', '-q', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const nginx = new TrackedProcess('nginx', bin.path, args);
  const front = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await (await fetch(`${front}/api/v1`)).arrayBuffer();
      break;
    } catch {
      if (i > 100 || !nginx.running) {
        let log = '';
        try {
          log = readFileSync(errorLog, 'utf8');
        } catch {
          // no log written
        }
        throw new Error(`nginx did not start: ${nginx.tail()} ${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { front, process: nginx, stop: () => nginx.stop() };
}
