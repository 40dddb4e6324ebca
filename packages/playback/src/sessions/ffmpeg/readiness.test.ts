import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EngineName } from "../../dash/inspection/inspection-model.js";
import { chooseFfmpegKey } from "./ffmpeg-key.js";
import { dashReadiness, type ReadinessChannel, readiness } from "./readiness.js";

type Ch = ReadinessChannel & { engine?: EngineName };
const ch = (id: string, ingress: "hls" | "dash", engine?: EngineName, disabled = false): Ch => ({
  id,
  ingress,
  disabled,
  ...(engine ? { engine } : {}),
});
const up = { ok: true as const, version: "5.1.9" };
const down = { ok: false as const, reason: "cannot run ffmpeg (ENOENT)" };

describe("dashReadiness", () => {
  it("does not count a DASH channel with fallback sources (the native TS engine runs it)", async () => {
    const check = dashReadiness({
      channels: () => [
        { id: "fo", ingress: "dash", disabled: false, engine: "ffmpeg", fallback_sources: [{}] },
      ],
      sessionEngine: () => undefined,
      // Never run: no channel needs ffmpeg.
      ffmpegPath: "/nonexistent/ffmpeg",
    });
    assert.deepEqual(await check(), { ready: true });
  });
});

describe("readiness", () => {
  const rows: [string, Ch[], typeof up | typeof down, boolean][] = [
    ["no channels, ffmpeg missing", [], down, true],
    ["HLS only, ffmpeg missing", [ch("a", "hls")], down, true],
    ["DASH native, ffmpeg missing", [ch("a", "dash", "native")], down, true],
    ["DASH not yet resolved, ffmpeg missing", [ch("a", "dash")], down, true],
    [
      "DASH on ffmpeg, ffmpeg missing",
      [ch("a", "hls"), ch("news-hd", "dash", "ffmpeg")],
      down,
      false,
    ],
    ["disabled DASH on ffmpeg, ffmpeg missing", [ch("b", "dash", "ffmpeg", true)], down, true],
    ["DASH on ffmpeg, ffmpeg runnable", [ch("news-hd", "dash", "ffmpeg")], up, true],
  ];
  for (const [name, channels, status, expected] of rows) {
    it(name, async () => {
      let asked = false;
      const r = await readiness(
        channels,
        (c) => c.engine,
        async () => {
          asked = true;
          return status;
        },
      );
      // ffmpeg is only run when a channel needs it.
      assert.equal(
        asked,
        channels.some((c) => c.ingress === "dash" && !c.disabled && c.engine === "ffmpeg"),
      );
      assert.equal(r.ready, expected);
      if (!r.ready) {
        assert.match(r.reason, /ffmpeg is not runnable/);
        assert.equal(r.reason.includes("news-hd"), false, "no channel id on a public endpoint");
      }
    });
  }
});

describe("chooseFfmpegKey", () => {
  const A = "0123456789abcdef0123456789abcdef";
  const B = "fedcba9876543210fedcba9876543210";
  const K1 = "11111111111111111111111111111111";
  const K2 = "22222222222222222222222222222222";
  const table = (entries: Record<string, string>) =>
    new Map(Object.entries(entries).map(([kid, key]) => [kid, Buffer.from(key, "hex")]));
  const rows: [
    string,
    { encrypted: boolean; kids: string[] },
    Record<string, string>,
    string | undefined,
    string | undefined,
  ][] = [
    ["clear source", { encrypted: false, kids: [] }, { [A]: K1 }, undefined, undefined],
    ["key by KID", { encrypted: true, kids: [A] }, { [A]: K1, [B]: K2 }, K1, undefined],
    ["no declared KID, one key", { encrypted: true, kids: [] }, { [B]: K1 }, K1, undefined],
    [
      "no declared KID, two keys",
      { encrypted: true, kids: [] },
      { [A]: K1, [B]: K2 },
      undefined,
      "several keys",
    ],
    [
      "no declared KID, no key",
      { encrypted: true, kids: [] },
      {},
      undefined,
      "no keys are configured",
    ],
    [
      "missing KID",
      { encrypted: true, kids: [A] },
      { [B]: K1 },
      undefined,
      `no key is configured for KID ${A}`,
    ],
    ["two KIDs, one key", { encrypted: true, kids: [A, B] }, { [A]: K1, [B]: K1 }, K1, undefined],
    [
      "two KIDs, two keys",
      { encrypted: true, kids: [A, B] },
      { [A]: K1, [B]: K2 },
      undefined,
      "2 different keys",
    ],
  ];
  for (const [name, source, keys, key, error] of rows) {
    it(name, () => {
      const r = chooseFfmpegKey(source, table(keys));
      if (error === undefined) assert.deepEqual(r, { ok: true, value: key });
      else {
        assert.equal(r.ok, false);
        assert.ok(!r.ok && r.error.includes(error), JSON.stringify(r));
        assert.equal(JSON.stringify(r).includes(K1) || JSON.stringify(r).includes(K2), false);
      }
    });
  }
});
