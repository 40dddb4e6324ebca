import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  buildFfmpegArgs,
  describeArgs,
  ffmpegEnvironment,
  PROTOCOL_WHITELIST,
  proxiedHeaders,
  removeOldRunFiles,
  runFileNames,
} from "./ffmpeg-args.js";
import { createScrubber, keySpellings } from "./secret-scrubber.js";

const KEY = "00112233445566778899aabbccddeeff";
const PROXY = "http://127.0.0.1:40123";
const valueAfter = (args: readonly string[], flag: string) => args[args.indexOf(flag) + 1];

describe("buildFfmpegArgs", () => {
  const source = {
    url: "http://127.0.0.1:9/live/manifest.mpd?token=s3cr3t",
    headers: { Authorization: "Bearer abcdefgh", "X-Trace": "on" },
    userAgent: "SVC/1.0",
    decryptionKey: KEY,
    httpProxy: PROXY,
  };
  const built = buildFfmpegArgs(source, "/data/sessions/news/3", 0);
  assert.ok(built.ok);
  const args = built.value;

  const rows: [string, string, string | undefined][] = [
    ["input", "-i", source.url],
    ["ClearKey key", "-cenc_decryption_key", KEY],
    ["egress proxy", "-http_proxy", PROXY],
    ["protocols", "-protocol_whitelist", "http,https,tcp,tls,httpproxy"],
    ["stream copy", "-c", "copy"],
    ["HLS muxer", "-f", "hls"],
    ["flags", "-hls_flags", "delete_segments+independent_segments+temp_file"],
    ["sliding window", "-hls_list_size", "6"],
    ["rising media sequence", "-hls_start_number_source", "epoch"],
    ["fMP4 segments", "-hls_segment_type", "fmp4"],
    ["per-run init name", "-hls_fmp4_init_filename", "init-r0.mp4"],
    ["per-run segment names", "-hls_segment_filename", "/data/sessions/news/3/r0-%d.m4s"],
    ["progress on stdout", "-progress", "pipe:1"],
  ];
  for (const [name, flag, expected] of rows) {
    it(name, () => assert.equal(valueAfter(args, flag), expected));
  }
  it("headers and user agent stay off argv (the egress proxy sends them)", () => {
    for (const flag of ["-headers", "-user_agent"]) assert.equal(args.includes(flag), false, flag);
    for (const value of ["Bearer abcdefgh", "X-Trace", "SVC/1.0"])
      assert.equal(args.join(" ").includes(value), false, value);
    assert.deepEqual(proxiedHeaders(source), {
      Authorization: "Bearer abcdefgh",
      "X-Trace": "on",
      "User-Agent": "SVC/1.0",
    });
  });
  it("headers without an egress proxy are refused: nothing else could send them", () => {
    const { httpProxy: _, ...direct } = source;
    assert.deepEqual(buildFfmpegArgs(direct, "/d", 0), {
      ok: false,
      error: "channel headers are sent by the egress proxy, and there is none",
    });
  });
  it("input options come before -i and the playlist is last", () => {
    assert.ok(args.indexOf("-cenc_decryption_key") < args.indexOf("-i"));
    assert.ok(args.indexOf("-http_proxy") < args.indexOf("-i"));
    assert.ok(args.indexOf("-protocol_whitelist") < args.indexOf("-i"));
    assert.equal(args.at(-1), "/data/sessions/news/3/media-0.m3u8");
    // No stream map: ffmpeg's default choice, and ffmpeg writes the master itself.
    assert.equal(valueAfter(args, "-master_pl_name"), "index.m3u8");
    assert.equal(args.includes("-map") || args.includes("-var_stream_map"), false);
    assert.ok(args.includes("-nostdin") && args.includes("-sn") && args.includes("-dn"));
  });
  it("a restart marks a discontinuity and uses new file names", () => {
    const r = buildFfmpegArgs(source, "/d", 2, {
      segmentType: "mpegts",
      listSize: 4,
      segmentSeconds: 4,
    });
    assert.ok(r.ok);
    assert.equal(
      valueAfter(r.value, "-hls_flags"),
      "delete_segments+independent_segments+temp_file+discont_start",
    );
    assert.equal(valueAfter(r.value, "-hls_segment_filename"), "/d/r2-%d.ts");
    assert.equal(r.value.includes("-hls_fmp4_init_filename"), false);
    assert.deepEqual(
      [valueAfter(r.value, "-hls_list_size"), valueAfter(r.value, "-hls_time")],
      ["4", "4"],
    );
    assert.deepEqual(runFileNames(2, "fmp4"), { init: "init-r2.mp4", segmentPattern: "r2-%d.m4s" });
  });
  it("a clear source without headers sends none of those options", () => {
    const r = buildFfmpegArgs({ url: "http://127.0.0.1:9/a.mpd" }, "/d", 0);
    assert.ok(r.ok);
    for (const flag of ["-headers", "-user_agent", "-cenc_decryption_key", "-http_proxy"])
      assert.equal(r.value.includes(flag), false, flag);
    assert.equal(valueAfter(r.value, "-protocol_whitelist"), PROTOCOL_WHITELIST, "always");
  });
  it("a stream map picks Representations by id, one media playlist each", () => {
    const r = buildFfmpegArgs(
      { url: "u" },
      "/d",
      1,
      {},
      { video: "v180", audio: ["a-fr", "a.en"] },
    );
    assert.ok(r.ok);
    const maps = r.value.flatMap((a, i) => (r.value[i - 1] === "-map" ? [a] : []));
    assert.deepEqual(maps, ["0:m:id:v180", "0:m:id:a-fr", "0:m:id:a.en"]);
    assert.ok(r.value.indexOf("-map") > r.value.indexOf("-i"), "output options");
    assert.equal(valueAfter(r.value, "-var_stream_map"), "v:0 a:0 a:1");
    assert.equal(valueAfter(r.value, "-hls_fmp4_init_filename"), "init-r1-%v.mp4");
    assert.equal(valueAfter(r.value, "-hls_segment_filename"), "/d/r1-%v-%d.m4s");
    assert.equal(r.value.at(-1), "/d/media-%v.m3u8");
    assert.equal(r.value.includes("-master_pl_name"), false, "the gateway writes the master");
    const audioOnly = buildFfmpegArgs({ url: "u" }, "/d", 0, {}, { audio: ["1"] });
    assert.ok(audioOnly.ok);
    assert.equal(valueAfter(audioOnly.value, "-var_stream_map"), "a:0");
    for (const id of ["a b", "x:y", "", "a\nb"])
      assert.deepEqual(buildFfmpegArgs({ url: "u" }, "/d", 0, {}, { video: id, audio: [] }), {
        ok: false,
        error: "a Representation id cannot be passed to ffmpeg's -map",
      });
  });
  const bad: [string, Parameters<typeof buildFfmpegArgs>[0], string][] = [
    [
      "CRLF in a header value",
      { url: "u", headers: { A: "x\r\nInjected: 1" } },
      'header "A" cannot be sent',
    ],
    [
      "space in a header name",
      { url: "u", headers: { "A B": "x" } },
      'header "A B" cannot be sent',
    ],
    ["newline in user agent", { url: "u", userAgent: "a\nb" }, "user_agent cannot be sent"],
    ["short key", { url: "u", decryptionKey: "abcd" }, "the decryption key must be 32 hex digits"],
    [
      "an https proxy",
      { url: "u", httpProxy: "https://127.0.0.1:1" },
      "the egress proxy must be an http:// URL",
    ],
    [
      "a proxy URL with a newline",
      { url: "u", httpProxy: "http://127.0.0.1:1\n-i" },
      "the egress proxy must be an http:// URL",
    ],
  ];
  for (const [name, src, error] of bad) {
    it(`refuses ${name}`, () => {
      const r = buildFfmpegArgs(src, "/d", 0);
      assert.deepEqual(r, { ok: false, error });
      assert.equal(JSON.stringify(r).includes("abcd") && name !== "short key", false);
    });
  }
});

describe("describeArgs", () => {
  it("redacts the key, header values and URL credentials, and keeps the rest", () => {
    const built = buildFfmpegArgs(
      {
        url: "http://user:pw@127.0.0.1:9/live/a.mpd?token=s3cr3t",
        decryptionKey: KEY,
        httpProxy: "http://0123456789abcdef:proxysecret0123@127.0.0.1:40123",
      },
      "/d",
      0,
    );
    assert.ok(built.ok);
    // Header values never reach argv; an old-style -headers argument is still redacted.
    built.value.splice(1, 0, "-headers", "Cookie: session=abc123\r\nX-Api-Key: k\r\n");
    const shown = describeArgs(built.value);
    const text = shown.join(" ");
    for (const secret of [
      KEY,
      "session=abc123",
      "s3cr3t",
      "pw",
      "proxysecret0123",
      "0123456789abcdef",
    ])
      assert.equal(text.includes(secret), false, secret);
    assert.equal(valueAfter(shown, "-cenc_decryption_key"), "[redacted]");
    assert.equal(valueAfter(shown, "-http_proxy"), "http://[redacted]@127.0.0.1:40123");
    // Even without the URL scrubber (a scrubber that only knows the key).
    const bare = describeArgs(built.value, (t) => t);
    assert.equal(valueAfter(bare, "-http_proxy"), "http://[redacted]@127.0.0.1:40123");
    assert.equal(valueAfter(shown, "-headers"), "Cookie: [redacted]\\r\\nX-Api-Key: [redacted]");
    assert.equal(valueAfter(shown, "-i"), "http://[redacted]@127.0.0.1:9/live/a.mpd?[redacted]");
    assert.equal(shown.at(-1), "/d/media-0.m3u8");
  });
  it("applies the session scrubber to the rest: a key in a URL path is removed too", () => {
    const built = buildFfmpegArgs(
      { url: `http://127.0.0.1:9/k/${KEY}/a.mpd`, decryptionKey: KEY },
      "/d",
      0,
    );
    assert.ok(built.ok);
    const shown = describeArgs(built.value, createScrubber(keySpellings(KEY)));
    assert.equal(valueAfter(shown, "-i"), "http://127.0.0.1:9/k/[redacted]/a.mpd");
    assert.equal(shown.join(" ").includes(KEY), false);
  });
});

describe("ffmpegEnvironment", () => {
  it("keeps PATH and LANG only: no gateway secret, no no_proxy", () => {
    const env = {
      PATH: "/usr/bin",
      LANG: "C.UTF-8",
      no_proxy: "*",
      NO_PROXY: "*",
      http_proxy: "x",
      SVC_TOKEN_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----",
      SVC_DATABASE_URL: "postgres://u:p@127.0.0.1/db",
      HOME: "/root",
    };
    assert.deepEqual(ffmpegEnvironment(env), { PATH: "/usr/bin", LANG: "C.UTF-8" });
    assert.equal(env.no_proxy, "*", "the given environment is left as it is");
  });
});

describe("removeOldRunFiles", () => {
  it("deletes runs before the previous one and keeps everything else", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-runs-"));
    try {
      const names = [
        "r0-1.m4s",
        "init-r0.mp4",
        "r0-3.m4s.tmp",
        "r1-5.m4s",
        "init-r1.mp4",
        "r2-9.m4s",
        "index.m3u8",
        "r10-1.m4s",
      ];
      for (const n of names) writeFileSync(join(dir, n), "x");
      await removeOldRunFiles(dir, 2);
      assert.deepEqual(readdirSync(dir).sort(), [
        "index.m3u8",
        "init-r1.mp4",
        "r1-5.m4s",
        "r10-1.m4s",
        "r2-9.m4s",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
