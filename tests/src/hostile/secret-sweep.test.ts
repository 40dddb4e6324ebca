import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { requestJson } from "../harness/http-client.js";
import { ed25519Pair } from "../harness/keys.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { cmdline } from "../harness/process-table.js";
import { SPEC_ROUTES } from "../harness/spec-routes.js";
import { hashFor } from "../harness/users.js";

// Issue 14 item 5: unique canaries in every secret-bearing field, then every route and error
// path exercised. No canary may appear in any answer (beyond the one-time plaintext answers
// and an admin's read of the source URL it stored), in the gateway's stdout/stderr at debug
// level, in its argv or its children's, nor as a plaintext in its database.
const tag = randomBytes(4).toString("hex");
const hex = () => randomBytes(16).toString("hex");
const C = {
  adminPassword: `cnry-admin-pw-${tag}`,
  viewerPassword: `cnry-viewer-pw-${tag}`,
  headerAuth: `cnry-hdr-auth-${tag}`,
  headerKey: `cnry-hdr-apikey-${tag}`,
  headerToken: `cnry-hdr-token-${tag}`,
  sourceQuery: `cnry-src-query-${tag}`,
  sourceUser: `cnryuser${tag}`,
  sourcePass: `cnrypass${tag}`,
  proxyUser: `cnryproxyuser${tag}`,
  proxyPass: `cnryproxypass${tag}`,
  signingKey: `cnry-signing-key-${tag}-${"s".repeat(32)}`,
  globalKey: hex(),
  channelKey: hex(),
};
const KID = hex();
const CHANNEL_KID = hex();

describe("secret sweep: canaries in every secret field never leave the gateway", () => {
  const pair = ed25519Pair();
  /** The PEM body of the signing key: any 40-character run of it is a leak. */
  const pemRun = pair.privatePem.split("\n")[1]!.slice(0, 40);
  let origin: Origin;
  let gw: GatewayProcess;
  let admin = "";
  let viewer = "";
  /** Plaintexts the gateway issued once; each may appear in its one creation answer only. */
  const issued: { value: string; label: string }[] = [];
  /** Every answer the sweep received, with the route that produced it. */
  const answers: { label: string; path: string; text: string; adminSourceRead: boolean }[] = [];

  const call = async (
    label: string,
    path: string,
    init: {
      method?: string;
      body?: unknown;
      token?: string;
      headers?: Record<string, string>;
    } = {},
  ) => {
    const r = await requestJson(`${gw.url}${path}`, init);
    const adminSourceRead =
      init.token !== undefined &&
      init.token !== viewer &&
      /^\/v1\/(admin\/)?channels/.test(path) &&
      (init.method ?? "GET") === "GET";
    answers.push({
      label,
      path,
      text: `${[...r.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${r.text}`,
      adminSourceRead,
    });
    return r;
  };

  before(async () => {
    origin = await startOrigin({
      routes: (req, res) => {
        if ((req.url ?? "").startsWith("/live/index.m3u8")) {
          res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
          res.end("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts\n#EXTINF:2,\nseg1.ts\n");
          return true;
        }
        if ((req.url ?? "").startsWith("/live/seg")) {
          res.writeHead(200, { "content-type": "video/mp2t" });
          res.end(Buffer.alloc(188 * 4, 0x47));
          return true;
        }
        return false;
      },
    });
    const src = `http://${C.sourceUser}:${C.sourcePass}@127.0.0.1:${origin.port}/live/index.m3u8?token=${C.sourceQuery}`;
    gw = await startGateway(
      "full",
      {
        auth: {
          users: [
            { username: "admin", password_hash: hashFor(C.adminPassword), role: "admin" },
            {
              username: "viewer",
              password_hash: hashFor(C.viewerPassword),
              role: "viewer",
              channel_ids: ["news"],
            },
          ],
          token_private_key: pair.privatePem,
          token_public_key: pair.publicPem,
          login_rate_per_min: 1000,
        },
        security: { allowed_hosts: ["127.0.0.1"], signing_key: C.signingKey },
        media: { keys: { [KID]: C.globalKey } },
        egress: {
          proxies: [{ id: "corp", url: `http://${C.proxyUser}:${C.proxyPass}@127.0.0.1:9` }],
        },
        guide: { logo_repositories: [] },
        channels: [
          {
            id: "news",
            title: "News",
            ingress: "hls",
            source_url: src,
            headers: {
              Authorization: `Bearer ${C.headerAuth}`,
              "X-Api-Key": C.headerKey,
              "X-Session-Token": C.headerToken,
            },
          },
          {
            id: "vault",
            title: "Vault",
            ingress: "dash",
            source_url: `http://127.0.0.1:${origin.port}/none.mpd`,
            keys: { [CHANNEL_KID]: C.channelKey },
          },
          {
            id: "routed",
            title: "Routed",
            ingress: "hls",
            source_url: `http://127.0.0.1:${origin.port}/live/index.m3u8`,
          },
        ],
      },
      { env: { SVC_LOG_LEVEL: "debug" } },
    );
    const login = async (username: string, password: string) => {
      const r = await call(`login ${username}`, "/v1/auth/login", { body: { username, password } });
      assert.equal(r.status, 200, r.text);
      return r.body.token as string;
    };
    admin = await login("admin", C.adminPassword);
    viewer = await login("viewer", C.viewerPassword);
    // Wrong passwords too: a failed login must not echo or log what was tried.
    await call("bad login", "/v1/auth/login", {
      body: { username: "admin", password: `${C.adminPassword}x` },
    });
  });
  after(async () => {
    await gw.stop();
    await origin.close();
  });

  it("plants token and key plaintexts, uses them, and sees every route", async () => {
    // One-time plaintexts: an API token (created and rotated) and a playback key.
    const created = await requestJson(`${gw.url}/v1/admin/api-tokens`, {
      token: admin,
      body: { name: "sweep", scopes: ["read", "write", "delete", "refresh"] },
    });
    assert.equal(created.status, 201, created.text);
    issued.push({ value: created.body.token, label: "api token create" });
    const rotated = await requestJson(
      `${gw.url}/v1/admin/api-tokens/${created.body.credential.id}/rotate`,
      {
        method: "POST",
        token: admin,
        headers: { "if-match": `"${created.body.credential.revision}"` },
      },
    );
    assert.equal(rotated.status, 201, rotated.text);
    issued.push({ value: rotated.body.token, label: "api token rotate" });
    const apiToken = rotated.body.token as string;
    const key = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "sweep-key" },
    });
    assert.equal(key.status, 201, key.text);
    issued.push({ value: key.body.token, label: "playback key create" });
    const playbackKey = key.body.token as string;

    // Playback with every credential, so logs and access records have something to hold.
    for (const [label, path, token] of [
      ["play session", "/v1/play/news/index.m3u8", admin],
      ["playlist session", "/v1/playlist.m3u", viewer],
      ["playlist ?token=", `/v1/playlist.m3u?token=${viewer}`, undefined],
      ["key playlist", `/p/${playbackKey}/playlist.m3u`, undefined],
      ["key play", `/p/${playbackKey}/play/news/index.m3u8`, undefined],
      ["key bad", `/p/${playbackKey.slice(0, -1)}x/playlist.m3u`, undefined],
    ] as const) {
      const r = await call(label, path, token === undefined ? {} : { token });
      // Follow the rewritten playlist one level, as a player would.
      if (r.status === 200 && r.text.startsWith("#EXTM3U") && path.includes("index.m3u8")) {
        for (const line of r.text
          .split("\n")
          .filter((l) => l !== "" && !l.startsWith("#"))
          .slice(0, 2)) {
          const u = new URL(line, `${gw.url}${path}`);
          await call(
            `${label} segment`,
            `${u.pathname}${u.search}`,
            token === undefined ? {} : { token },
          );
        }
      }
    }

    // Every GET route of the table, with an admin session, the API token and the viewer.
    const fill = (p: string) =>
      p
        .replace("{token}", playbackKey)
        .replace("{upstream}", "aHR0cDovLzEyNy4wLjAuMTo5L3g")
        .replace("{file}", "index.m3u8")
        .replace("{id}", "news")
        .replace("/*", "/");
    for (const route of SPEC_ROUTES.filter((r) => r.method === "GET")) {
      for (const [who, token] of [
        ["admin", admin],
        ["api token", apiToken],
        ["viewer", viewer],
      ] as const) {
        await call(`${who} GET ${route.path}`, fill(route.path), { token });
      }
    }
    for (const path of [
      "/v1/admin/channels/vault",
      "/v1/admin/channels/routed",
      "/v1/admin/egress",
      "/v1/admin/settings",
      "/v1/admin/access-logs",
      "/v1/admin/api-token-logs",
      "/v1/status",
      "/metrics",
      "/admin/",
      "/v1/epg.xml",
    ])
      await call(`admin ${path}`, path, { token: admin });
    // The console's HTML and every asset it names.
    const html = await call("console", "/admin/");
    for (const m of html.text.matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g))
      await call(`asset ${m[1]}`, m[1]!);

    // Actions whose answers describe the secret-bearing things, and error paths.
    const actions: [string, string, unknown][] = [
      ["probe news", "/v1/admin/channels/news/probe", undefined],
      ["probe vault", "/v1/admin/channels/vault/probe", undefined],
      ["warmup vault", "/v1/admin/channels/vault/warmup", undefined],
      ["preview news", "/v1/admin/channels/news/preview", undefined],
      [
        "egress test via corp",
        "/v1/admin/egress/test",
        {
          target: "custom",
          url: `http://127.0.0.1:${origin.port}/live/index.m3u8`,
          proxy_id: "corp",
        },
      ],
      [
        "source probe",
        "/v1/admin/source-probes",
        {
          id: "sp",
          title: "sp",
          ingress: "hls",
          source_url: `http://127.0.0.1:${origin.port}/live/index.m3u8`,
          egress: { mode: "profile", profile_id: "corp" },
        },
      ],
      ["export m3u", "/v1/admin/exports/m3u", undefined],
      ["bad channel write", "/v1/admin/channels", { id: "news", title: 5 }],
      [
        "duplicate channel",
        "/v1/admin/channels",
        { id: "news", title: "x", ingress: "hls", source_url: "http://127.0.0.1:9/x" },
      ],
      ["bad proxy write", "/v1/admin/egress/proxies", { id: "corp", url: "gopher://x" }],
    ];
    for (const [label, path, body] of actions) {
      const r = await call(label, path, {
        method: "POST",
        token: admin,
        ...(body === undefined ? {} : { body }),
      });
      if (label === "export m3u") {
        const k = /\/p\/(v1[A-Za-z0-9]+)\//.exec(r.text);
        assert.ok(k !== null, r.text);
        issued.push({ value: k[1]!, label: "export m3u" });
      }
    }
    // Channel write with a blank secret header keeps the stored value; the answer holds none.
    await call("channel put", "/v1/admin/channels/news", {
      method: "PUT",
      token: admin,
      body: {
        id: "news",
        title: "News 2",
        ingress: "hls",
        source_url: `http://127.0.0.1:${origin.port}/live/index.m3u8`,
        headers: { Authorization: "", "X-Api-Key": "" },
      },
    });
    await call("channel after put", "/v1/admin/channels/news", { token: admin });
    await call("egress after", "/v1/admin/egress", { token: admin });
    await call("access logs after", "/v1/admin/access-logs", { token: apiToken });
    await call("token logs after", "/v1/admin/api-token-logs", { token: admin });
    await call("metrics after", "/metrics");
    assert.ok(answers.length > 120, `only ${answers.length} answers`);
  });

  it("no canary in any answer, log line, argv or stored plaintext", async () => {
    const canaries: [string, string][] = [...Object.entries(C), ["signing key PEM", pemRun]];
    const sourceSecrets = new Set([C.sourceQuery, C.sourceUser, C.sourcePass]);
    for (const a of answers) {
      for (const [name, value] of canaries) {
        if (a.adminSourceRead && sourceSecrets.has(value)) continue;
        assert.ok(!a.text.toLowerCase().includes(value.toLowerCase()), `${name} in ${a.label}`);
      }
      for (const i of issued) {
        // Its one creation answer holds it, and a key's own playlist names it in its URLs
        // (the caller sent it in the path).
        if (a.label === i.label || a.path.includes(i.value)) continue;
        assert.ok(!a.text.includes(i.value), `${i.label} plaintext in ${a.label}`);
        // The display prefix may appear; anything longer than it is a leak.
        assert.ok(
          !a.text.includes(i.value.slice(0, 16)),
          `${i.label} beyond its prefix in ${a.label}`,
        );
      }
      // Upstream URLs travel base64url-encoded in u/ paths: decode them and look inside too.
      for (const m of a.text.matchAll(/\/u\/([A-Za-z0-9_-]{16,})/g)) {
        const decoded = Buffer.from(m[1]!, "base64url").toString("latin1");
        for (const [name, value] of canaries)
          assert.ok(!decoded.includes(value), `${name} inside a signed upstream URL in ${a.label}`);
      }
    }
    const logs = `${gw.stdout()}\n${gw.stderr()}`;
    // ASVS V16.3.1: the failed login is logged, without what was tried.
    assert.match(logs, /login failed/);
    for (const [name, value] of [
      ...canaries,
      ...issued.map((i) => [i.label, i.value] as [string, string]),
    ])
      assert.ok(!logs.toLowerCase().includes(value.toLowerCase()), `${name} in the gateway's logs`);
    // argv of the gateway and of every descendant (ffmpeg, if one runs).
    const pids = [gw.proc.pid!, ...descendants(gw.proc.pid!)];
    for (const pid of pids) {
      const argv = cmdline(pid).join(" ");
      for (const [name, value] of canaries)
        assert.ok(!argv.toLowerCase().includes(value.toLowerCase()), `${name} in argv of ${pid}`);
    }
    // The database keeps digests: no issued plaintext in any file of the data dir.
    for (const file of walk(gw.dataDir)) {
      const bytes = readFileSync(file).toString("latin1");
      for (const i of issued)
        assert.ok(!bytes.includes(i.value), `${i.label} plaintext stored in ${file}`);
    }
  });
});

function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let kids: number[] = [];
    try {
      kids = readdirSync(`/proc/${p}/task`).flatMap((t) =>
        readFileSync(`/proc/${p}/task/${t}/children`, "utf8")
          .split(" ")
          .filter(Boolean)
          .map(Number),
      );
    } catch {
      kids = [];
    }
    out.push(...kids);
    stack.push(...kids);
  }
  return out;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    try {
      return statSync(p).isDirectory() ? walk(p) : [p];
    } catch {
      return [];
    }
  });
}
