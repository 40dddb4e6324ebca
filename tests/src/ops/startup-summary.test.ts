import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { stringify } from "yaml";
import { binaryPath, startGateway, tempDir } from "../harness/gateway-process.js";
import { until } from "../harness/until.js";
import { authSection } from "../harness/users.js";

const channels = [
  { id: "a", title: "A", ingress: "hls", source_url: "http://127.0.0.1:9/a.m3u8" },
  { id: "b", title: "B", ingress: "hls", source_url: "http://127.0.0.1:9/b.m3u8" },
  { id: "c", title: "C", ingress: "dash", source_url: "http://127.0.0.1:9/c.mpd" },
];

/** The JSON records printed before the first `listening on` line. */
function recordsBeforeListening(
  stdout: string,
): { msg: string; level: number; [k: string]: unknown }[] {
  const head = stdout.slice(0, stdout.indexOf("listening on "));
  return head
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("startup summary", () => {
  it("lite, JSON lines: build, listen, data dir, no state DB, engines with ffmpeg, channels", async () => {
    const gw = await startGateway(
      "lite",
      { auth: authSection(), channels },
      { env: { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "json" } },
    );
    try {
      const msgs = recordsBeforeListening(gw.stdout()).map((r) => r.msg);
      assert.equal(msgs.length, 6, JSON.stringify(msgs));
      assert.match(
        msgs[0]!,
        /^svc-gateway lite \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown), node v\d+/,
      );
      assert.equal(msgs[1], `listen: ${gw.url}`);
      assert.equal(msgs[2], `data dir: ${gw.dataDir}`);
      assert.match(msgs[3]!, /^state database: none \(lite build/);
      assert.match(
        msgs[4]!,
        /^engines: native \(HLS proxy, DASH packager\), ffmpeg \S+ \(ffmpeg\)$/,
      );
      assert.equal(msgs[5], "channels: 3");
      assert.match(gw.stdout(), new RegExp(`^listening on ${gw.url}$`, "m"));
    } finally {
      assert.equal(await gw.stop(), 0);
    }
  });

  it("full: the state database file, ffmpeg missing said plainly, no secret in the lines", async () => {
    const signing = "s".repeat(40);
    const gw = await startGateway(
      "full",
      {
        auth: authSection(),
        channels: channels.slice(0, 2),
        media: { ffmpeg_path: "/nonexistent/ffmpeg" },
        security: { signing_key: signing },
      },
      { env: { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "json" } },
    );
    try {
      const records = recordsBeforeListening(gw.stdout());
      const msgs = records.map((r) => r.msg);
      assert.match(msgs[0]!, /^svc-gateway full /);
      const db = join(gw.dataDir, "state.db");
      assert.ok(msgs.includes(`state database: ${db}`), JSON.stringify(msgs));
      assert.ok(existsSync(db));
      const engines = msgs.find((m) => m.startsWith("engines: "))!;
      assert.match(
        engines,
        /ffmpeg not available \(cannot run ffmpeg \(ENOENT\); media\.ffmpeg_path: \/nonexistent\/ffmpeg\)/,
      );
      assert.ok(msgs.includes("channels: 2"), JSON.stringify(msgs));
      assert.ok(records.every((r) => r.level === 30 && r.build === "full"));
      assert.ok(!gw.stdout().includes(signing) && !gw.stdout().includes("$2b$"));
    } finally {
      assert.equal(await gw.stop(), 0);
    }
  });

  it("SVC_LOG_FORMAT=pretty forces readable lines (uncoloured off a terminal)", async () => {
    const gw = await startGateway(
      "lite",
      { auth: authSection(), channels },
      { env: { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "pretty" } },
    );
    try {
      const head = gw.stdout().slice(0, gw.stdout().indexOf("listening on "));
      const lines = head.trimEnd().split("\n");
      assert.equal(lines.length, 6, head);
      for (const line of lines) {
        assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: /);
        assert.ok(!line.startsWith("{"), line);
      }
      assert.match(lines[5]!, /INFO: channels: 3$/);
      assert.ok(!head.includes("\u001b["), "no colour codes when stdout is not a terminal");
    } finally {
      assert.equal(await gw.stop(), 0);
    }
  });

  it("JSON lines by default when stdout is not a terminal", async () => {
    const gw = await startGateway(
      "lite",
      { auth: authSection(), channels },
      { env: { SVC_LOG_LEVEL: "info" } },
    );
    try {
      assert.equal(recordsBeforeListening(gw.stdout()).length, 6);
    } finally {
      assert.equal(await gw.stop(), 0);
    }
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it("coloured pretty lines when stdout is a terminal", {
    skip: hasScript ? false : "util-linux script missing",
  }, async () => {
    const dir = tempDir("svc-tty-log-");
    const config = join(dir, "gateway.yaml");
    writeFileSync(
      config,
      stringify({
        server: { listen: "127.0.0.1:0", data_dir: join(dir, "data") },
        auth: authSection(),
        channels,
      }),
    );
    // script runs the binary on a pseudo-terminal; detached, so the whole group can be stopped.
    const proc = spawn(
      "script",
      [
        "-qfec",
        `${JSON.stringify(process.execPath)} ${binaryPath("lite")} --config ${config}`,
        "/dev/null",
      ],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, TERM: "xterm", SVC_LOG_LEVEL: "info" },
        detached: true,
      },
    );
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    try {
      for (let i = 0; i < 1500 && !/listening on/.test(out); i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.match(out, /listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(out.includes("\u001b["), `expected colour codes in ${JSON.stringify(out)}`);
      assert.match(out, /channels: 3/);
      assert.ok(!/^\{"level"/m.test(out), "not JSON");
    } finally {
      process.kill(-proc.pid!, "SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("full: the TLS listener in the summary, and a warning when the runtime setting keeps it off", async () => {
    const dir = tempDir("svc-tls-summary-");
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
          "/CN=localhost",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      const env = { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "json" };
      const tls = {
        listen: "127.0.0.1:0",
        tls_listen: "127.0.0.1:0",
        tls_cert_file: join(dir, "cert.pem"),
        tls_key_file: join(dir, "key.pem"),
      };
      // First start without TLS: the settings row records TLS off.
      const plain = await startGateway("full", { auth: authSection() }, { env, dir });
      assert.equal(await plain.stop(), 0);
      const off = await startGateway("full", { auth: authSection(), server: tls }, { env, dir });
      try {
        assert.match(
          off.stdout(),
          /"level":40,[^\n]*"msg":"tls_listen 127\.0\.0\.1:0: not started, TLS is turned off in the runtime settings/,
        );
        assert.doesNotMatch(off.stdout(), /listening on https:/);
      } finally {
        assert.equal(await off.stop(), 0);
      }
      // A fresh data dir takes TLS on from the file: both listeners, both in the summary.
      const on = await startGateway(
        "full",
        { auth: authSection(), server: { ...tls, data_dir: join(dir, "fresh") } },
        { env, dir },
      );
      try {
        // The https line follows the http one that startGateway waited for.
        const https = await until(
          "the https listening line",
          () => /^listening on (https:\/\/\S+)$/m.exec(on.stdout())?.[1],
          20_000,
        );
        assert.match(on.stdout(), new RegExp(`"msg":"listen: ${on.url}, ${https}"`));
      } finally {
        assert.equal(await on.stop(), 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
