import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { foldProgressLine } from "./ffmpeg-progress.js";
import { DEFAULT_BACKOFF, failuresAfterRun, restartDelayMs } from "./restart-backoff.js";

describe("restart backoff", () => {
  const rows: [number, number][] = [
    [0, 1_000],
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [5, 16_000],
    [6, 30_000],
    [50, 30_000],
  ];
  for (const [failures, ms] of rows)
    it(`failure ${failures} waits ${ms} ms`, () =>
      assert.equal(restartDelayMs(DEFAULT_BACKOFF, failures), ms));
  it("a stable run starts the count over; a short one adds to it", () => {
    assert.equal(failuresAfterRun(DEFAULT_BACKOFF, 7, 60_000), 1);
    assert.equal(failuresAfterRun(DEFAULT_BACKOFF, 7, 59_999), 8);
  });
});

describe("foldProgressLine", () => {
  const start = { outTimeMs: 1000, totalBytes: 0 };
  const rows: [string, number, number, boolean][] = [
    ["out_time_us=2500000", 2500, 0, true],
    ["out_time_ms=2500000", 2500, 0, true],
    ["out_time_us=1000000", 1000, 0, false],
    ["total_size=4096", 1000, 4096, true],
    ["total_size=N/A", 1000, 0, false],
    ["progress=continue", 1000, 0, false],
    ["garbage", 1000, 0, false],
  ];
  for (const [line, ms, bytes, advanced] of rows)
    it(line, () =>
      assert.deepEqual(foldProgressLine(start, line), {
        progress: { outTimeMs: ms, totalBytes: bytes },
        advanced,
      }),
    );
});
