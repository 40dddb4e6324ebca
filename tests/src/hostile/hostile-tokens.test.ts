import assert from "node:assert/strict";
import { createHmac, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type Build, type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ed25519Pair, hs256WithPublicKey, signSession, unsignedToken } from "../harness/keys.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { HostileGroup } from "./hostile-checks.js";

// Issue 14 item 2: every odd bearer and JWT shape, and playback keys one character off. Each
// must be refused with the same 401 `unauthorized` body; a real credential beside them must
// work, so the refusals are about the token. Key sources named in a token header (jku, x5u)
// point at a loopback trap that must never be dialled.
const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

/** A compact JWS over any header and payload, signed Ed25519 with `key` (or not at all). */
function forge(header: Record<string, unknown>, payload: Record<string, unknown>, key?: KeyObject) {
  const input = `${b64(header)}.${b64(payload)}`;
  const sig = key === undefined ? "" : sign(null, Buffer.from(input), key).toString("base64url");
  return `${input}.${sig}`;
}

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const t = now();
  return {
    iss: "svc",
    aud: "svc",
    sub: "admin",
    acct: "admin",
    kind: "session",
    role: "admin",
    channels: [],
    rev: 0,
    jti: `j-${Math.random().toString(36).slice(2)}`,
    iat: t,
    nbf: t,
    exp: t + 600,
    ...extra,
  };
}

/** Label → bearer value. Every one must be refused. */
function hostileBearers(pair: ReturnType<typeof ed25519Pair>, trap: string): [string, string][] {
  const attacker = generateKeyPairSync("ed25519");
  const attackerJwk = attacker.publicKey.export({ format: "jwk" });
  const h = { alg: "EdDSA", typ: "JWT" };
  const right = pair.privateKey;
  const t = now();
  const good = forge(h, claims(), right);
  const [gh, gp, gs] = good.split(".") as [string, string, string];
  const flip = (s: string) => `${s.slice(0, -2)}${s.at(-2) === "A" ? "B" : "A"}${s.at(-1)}`;
  return [
    ["empty", ""],
    ["spaces", "   "],
    ["one dot", "a.b"],
    ["four parts", `${good}.x`],
    ["not base64", "%%%.%%%.%%%"],
    ["10 KiB of junk", "x".repeat(10_240)],
    ["JSON, not a JWT", '{"alg":"none"}'],
    ["alg none", unsignedToken(claims())],
    ["alg None", forge({ alg: "None", typ: "JWT" }, claims())],
    ["alg NONE with the real signature", `${b64({ alg: "NONE" })}.${gp}.${gs}`],
    ["HS256 keyed with the public key PEM", hs256WithPublicKey(pair.publicPem, claims())],
    [
      "HS256 with an empty key and kid /dev/null",
      (() => {
        const head = `${b64({ alg: "HS256", typ: "JWT", kid: "../../../../../../dev/null" })}.${b64(claims())}`;
        return `${head}.${createHmac("sha256", "").update(head).digest("base64url")}`;
      })(),
    ],
    ["RS256 header on an Ed25519 signature", `${b64({ alg: "RS256", typ: "JWT" })}.${gp}.${gs}`],
    ["ES256 header", `${b64({ alg: "ES256" })}.${gp}.${gs}`],
    ["signed by another key", forge(h, claims(), attacker.privateKey)],
    [
      "jku to a loopback trap",
      forge({ ...h, jku: `${trap}/jwks.json` }, claims(), attacker.privateKey),
    ],
    [
      "x5u to a loopback trap",
      forge({ ...h, x5u: `${trap}/cert.pem` }, claims(), attacker.privateKey),
    ],
    [
      "embedded jwk of the signer",
      forge({ ...h, jwk: attackerJwk }, claims(), attacker.privateKey),
    ],
    [
      "kid path traversal",
      forge({ ...h, kid: "../../data/auth/ed25519.pem" }, claims(), attacker.privateKey),
    ],
    ["kid SQL", forge({ ...h, kid: "' OR '1'='1" }, claims(), attacker.privateKey)],
    [
      "crit with an unknown extension (right key)",
      forge({ ...h, crit: ["x-svc"], "x-svc": 1 }, claims(), right),
    ],
    ["crit empty (right key)", forge({ ...h, crit: [] }, claims(), right)],
    ["b64 false (right key)", forge({ ...h, b64: false, crit: ["b64"] }, claims(), right)],
    [
      "payload changed, signature kept",
      `${gh}.${b64(claims({ role: "admin", sub: "root" }))}.${gs}`,
    ],
    ["signature one character off", `${gh}.${gp}.${flip(gs)}`],
    ["signature dropped", `${gh}.${gp}.`],
    ["exp as a string", forge(h, claims({ exp: String(t + 600) }), right)],
    ["iat as a string", forge(h, claims({ iat: String(t) }), right)],
    ["nbf as a string", forge(h, claims({ nbf: String(t) }), right)],
    ["exp as a float string far ahead", forge(h, claims({ exp: "9e99" }), right)],
    [
      "expired an hour ago",
      forge(h, claims({ iat: t - 7200, nbf: t - 7200, exp: t - 3600 }), right),
    ],
    ["not valid for an hour", forge(h, claims({ nbf: t + 3600, exp: t + 7200 }), right)],
    ["issued in the future", forge(h, claims({ iat: t + 3600 }), right)],
    ["no exp", forge(h, { ...claims(), exp: undefined }, right)],
    ["no jti", forge(h, { ...claims(), jti: undefined }, right)],
    ["foreign issuer", forge(h, claims({ iss: "other" }), right)],
    ["foreign audience", forge(h, claims({ aud: ["other"] }), right)],
    ["unknown kind", forge(h, claims({ kind: "admin" }), right)],
    ["rev as a string", forge(h, claims({ rev: "0" }), right)],
    ["unknown account", forge(h, claims({ sub: "ghost", acct: "ghost" }), right)],
    ["svc_v1_ shape, unknown", `svc_v1_${"A".repeat(48)}`],
    ["svc_v1_ one character short", `svc_v1_${"A".repeat(47)}`],
    ["svc_v1_ with non-base62", `svc_v1_${"-".repeat(48)}`],
  ];
}

for (const build of ["lite", "full"] as Build[]) {
  describe(`hostile input, ${build}: odd bearers and JWT shapes`, () => {
    const pair = ed25519Pair();
    let gw: GatewayProcess;
    let trap: Origin;
    let group: HostileGroup;
    let session: string;

    before(async () => {
      trap = await startOrigin({ host: "127.0.0.2" });
      gw = await startGateway(build, {
        auth: authSection([], {
          token_private_key: pair.privatePem,
          token_public_key: pair.publicPem,
          login_rate_per_min: 100_000,
        }),
        channels: [
          { id: "news", title: "News", ingress: "hls", source_url: "http://127.0.0.1:9/n.m3u8" },
        ],
      });
      group = new HostileGroup(gw);
      session = await login(gw.url, "admin", ADMIN_PASSWORD);
    });
    after(async () => {
      await gw.stop();
      await trap.close();
    });

    const targets =
      build === "full"
        ? ["/v1/me", "/v1/admin/channels", "/v1/playlist.m3u"]
        : ["/v1/playlist.m3u", "/v1/play/news/index.m3u8"];

    it("refuses every shape with one identical 401 body, by header and by ?token=", async () => {
      const bearers = hostileBearers(pair, trap.url);
      for (const path of targets) {
        // A missing credential, an API-token shape and a bad JWT may be told apart (their
        // messages differ); among JWT-shaped forgeries nothing may differ, so no answer
        // says which check failed (signature, algorithm, claims, account).
        const forged = new Set<string>();
        const note = (text: string, bearer: string) => {
          assert.match(text, /"code":"unauthorized"/);
          if (bearer.includes(".")) forged.add(text);
        };
        // The real session passes on each target: the refusals below are about the token.
        const ok = await requestJson(`${gw.url}${path}`, { token: session });
        assert.notEqual(ok.status, 401, `${path} with a real session: ${ok.text}`);
        for (const [label, bearer] of bearers) {
          const byHeader = await fetch(`${gw.url}${path}`, {
            headers: { authorization: `Bearer ${bearer}` },
          });
          const a = await group.record(`${path} header ${label}`, byHeader);
          assert.equal(a.status, 401, `${a.label}: ${a.text}`);
          note(a.text, bearer);
          if (path.startsWith("/v1/play")) {
            const q = await group.record(
              `${path} ?token= ${label}`,
              await fetch(`${gw.url}${path}?token=${encodeURIComponent(bearer)}`),
            );
            assert.equal(q.status, 401, `${q.label}: ${q.text}`);
            note(q.text, bearer);
          }
        }
        for (const header of [
          "Basic YWRtaW46eA==",
          "Bearer",
          "bearer",
          `Token ${session}`,
          `Bearer  ${session} x`,
          `Bearer ${session},${session}`,
        ]) {
          const a = await group.record(
            `${path} authorization ${header.slice(0, 20)}`,
            await fetch(`${gw.url}${path}`, { headers: { authorization: header } }),
          );
          if (path === "/v1/playlist.m3u" || path.startsWith("/v1/play"))
            assert.equal(a.status, 401, a.label);
          else assert.equal(a.status, 401, `${a.label}: ${a.text}`);
          note(a.text, "");
        }
        assert.equal(forged.size, 1, `${path}: ${[...forged].join("\n")}`);
      }
      assert.equal(trap.hits.length, 0, "a token header made the gateway fetch a key");
      await group.check();
    });
  });
}

describe("hostile input, full: playback keys one character off", () => {
  let gw: GatewayProcess;
  let group: HostileGroup;
  let key: string;

  before(async () => {
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 100_000 }),
      channels: [
        { id: "news", title: "News", ingress: "hls", source_url: "http://127.0.0.1:9/n.m3u8" },
      ],
    });
    group = new HostileGroup(gw);
    const admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    const r = await requestJson(`${gw.url}/v1/admin/access-tokens`, {
      token: admin,
      body: { name: "player" },
    });
    assert.equal(r.status, 201, r.text);
    key = r.body.token;
  });
  after(async () => {
    await gw.stop();
  });

  it("answers every near miss with the same 401 as an unknown key; the key itself works", async () => {
    const swap = (s: string, i: number) =>
      `${s.slice(0, i)}${s[i] === "a" ? "b" : "a"}${s.slice(i + 1)}`;
    const variants: [string, string][] = [
      ["last character changed", swap(key, key.length - 1)],
      ["first body character changed", swap(key, 2)],
      ["middle character changed", swap(key, 64)],
      ["one character short", key.slice(0, -1)],
      ["one character long", `${key}a`],
      ["case flipped", key.replace(/[a-z]/, (c) => c.toUpperCase())],
      ["display prefix only", key.slice(0, 10)],
      ["v2 marker", `v2${key.slice(2)}`],
      ["unknown, right shape", `v1${"Z".repeat(126)}`],
      ["trailing NUL", `${key}%00`],
    ];
    const ok = await fetch(`${gw.url}/p/${key}/playlist.m3u`);
    assert.equal(ok.status, 200);
    await ok.text();
    const bodies = new Set<string>();
    for (const [label, k] of variants) {
      for (const path of ["playlist.m3u", "play/news/index.m3u8", "play/news/live/x.ts"]) {
        const a = await group.record(`${label} ${path}`, await fetch(`${gw.url}/p/${k}/${path}`));
        assert.equal(a.status, 401, `${a.label}: ${a.text}`);
        bodies.add(a.text);
      }
    }
    assert.equal(bodies.size, 1, [...bodies].join("\n"));
    await group.check();
  });
});
