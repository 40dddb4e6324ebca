// The nginx references of the benches (hls-proxy.mjs, ts-channel.mjs): one worker, no
// daemon, every path under `dir`, access log off, sendfile. Loopback only.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `dir/nginx.conf` for a server on 127.0.0.1:`port` whose block is `body`; `http` goes
 * in the `http` block, and `originPort` names an `upstream origin` on 127.0.0.1 to proxy to.
 * Answers the file's path (run `nginx -c PATH -p dir`).
 */
export function writeNginxConf(dir, { port, body, http = "", originPort }) {
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `user root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  ${http}
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
  ${originPort === undefined ? "" : `upstream origin { server 127.0.0.1:${originPort}; keepalive 128; }`}
  server {
    listen 127.0.0.1:${port};
    ${body}
  }
}
`,
  );
  return conf;
}
