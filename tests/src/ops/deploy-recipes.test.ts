import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { tempDir } from "../harness/gateway-process.js";
import { repoRoot } from "../harness/paths.js";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const deployDoc = read("docs/deploy.md");

describe("docs/deploy.md recipes", () => {
  it("the systemd unit in the doc is deploy/svc-gateway.service, with the hardening it promises", () => {
    const unit = read("deploy/svc-gateway.service");
    assert.ok(
      deployDoc.includes(`\`\`\`ini\n${unit}\`\`\``),
      "the doc shows the unit file verbatim",
    );
    for (const line of [
      "DynamicUser=yes",
      "StateDirectory=svc-gateway",
      "ProtectSystem=strict",
      "NoNewPrivileges=yes",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
      "MemoryMax=1G",
      "LimitNOFILE=65536",
    ])
      assert.match(unit, new RegExp(`^${line}$`, "m"), line);
  });

  it("systemd-analyze verify accepts the unit and flags a misspelt copy", {
    skip: has("systemd-analyze") ? false : "systemd-analyze missing",
  }, () => {
    const dir = tempDir("svc-unit-");
    try {
      const unit = read("deploy/svc-gateway.service");
      const good = join(dir, "svc-gateway.service");
      writeFileSync(good, unit);
      const ok = spawnSync("systemd-analyze", ["verify", good], { encoding: "utf8" });
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stderr.trim(), "", "no warning");
      // The check can fail: a misspelt directive is reported.
      const bad = join(dir, "svc-gateway-bad.service");
      writeFileSync(bad, unit.replace("NoNewPrivileges=yes", "NoNewPrivilges=yes"));
      const flagged = spawnSync("systemd-analyze", ["verify", bad], { encoding: "utf8" });
      assert.match(flagged.stderr, /Unknown key 'NoNewPrivilges'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("nginx -t accepts the TLS front (with a throwaway certificate)", {
    skip: has("nginx") && has("openssl") ? false : "nginx or openssl missing",
  }, () => {
    const site = read("deploy/nginx-svc-gateway.conf");
    assert.ok(
      deployDoc.includes(`\`\`\`nginx\n${site}\`\`\``),
      "the doc shows the site file verbatim",
    );
    const dir = tempDir("svc-nginx-");
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ed25519",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=tv.example.org",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      writeFileSync(
        join(dir, "site.conf"),
        site
          .replace("/etc/letsencrypt/live/tv.example.org/fullchain.pem", join(dir, "cert.pem"))
          .replace("/etc/letsencrypt/live/tv.example.org/privkey.pem", join(dir, "key.pem")),
      );
      writeFileSync(
        join(dir, "nginx.conf"),
        `pid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/site.conf;\n}\n`,
      );
      const r = spawnSync("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")], {
        encoding: "utf8",
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /syntax is ok/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("nginx -t accepts the cluster front (with a throwaway certificate), shown verbatim in the doc", {
    skip: has("nginx") && has("openssl") ? false : "nginx or openssl missing",
  }, () => {
    const site = read("deploy/nginx-svc-cluster.conf");
    assert.ok(
      deployDoc.includes(`\`\`\`nginx\n${site}\`\`\``),
      "the doc shows the site file verbatim",
    );
    const dir = tempDir("svc-nginx-cluster-");
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ed25519",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=tv.example.org",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      writeFileSync(
        join(dir, "site.conf"),
        site
          .replace("/etc/letsencrypt/live/tv.example.org/fullchain.pem", join(dir, "cert.pem"))
          .replace("/etc/letsencrypt/live/tv.example.org/privkey.pem", join(dir, "key.pem"))
          .replace("/var/cache/nginx/svc-gateway", join(dir, "cache")),
      );
      writeFileSync(
        join(dir, "nginx.conf"),
        `pid ${dir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  include ${dir}/site.conf;\n}\n`,
      );
      const r = spawnSync("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")], {
        encoding: "utf8",
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /syntax is ok/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("compose.yaml runs the full build with a named /data volume and the image's SVC_CONFIG", () => {
    const compose = parse(read("compose.yaml"));
    const gateway = compose.services.gateway;
    assert.deepEqual(gateway.command, ["gateway-full"]);
    assert.ok(gateway.volumes.includes("svc-data:/data"));
    assert.ok(gateway.volumes.includes("./gateway.yaml:/data/gateway.yaml:ro"));
    assert.ok("svc-data" in compose.volumes);
    assert.match(
      read("compose.yaml"),
      /^ {2}# postgres:$/m,
      "the PostgreSQL service is there, commented",
    );
  });

  it("the Dockerfile has the promised shape (the image itself: npm run test:image)", () => {
    const file = read("Dockerfile");
    for (const re of [
      /^ARG BASE=node:20-bookworm-slim$/m,
      /^FROM \$\{BASE\} AS build$/m,
      /^FROM \$\{BASE\} AS runtime$/m,
      /ffmpeg tini/,
      /^USER svc:svc$/m,
      /^VOLUME \["\/data"\]$/m,
      /SVC_CONFIG=\/data\/gateway\.yaml/,
      /^HEALTHCHECK [^\n]*\\\n[^\n]*\/healthz/m,
      /^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m,
    ])
      assert.match(file, re);
    const pnpm = JSON.parse(read("package.json")).packageManager.replace("pnpm@", "");
    assert.match(
      file,
      new RegExp(`^ARG PNPM_VERSION=${pnpm.replaceAll(".", "\\.")}$`, "m"),
      "the pinned pnpm",
    );
  });
});
