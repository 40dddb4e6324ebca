import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResolvedSource } from "./channel-sources.js";
import { slateHeightFor } from "./slate-clip.js";
import { SourceFailover } from "./source-failover.js";

const sources: ResolvedSource[] = [0, 1, 2].map((index) => ({
  index,
  url: `http://127.0.0.1:9/${index}.ts`,
  headers: {},
  credentialOrigin: "http://127.0.0.1:9",
}));

function controller(failbackMs = 10_000) {
  const counted: string[] = [];
  const logged: string[] = [];
  const f = new SourceFailover(sources, {
    channelId: "c",
    failbackMs,
    log: (event) => logged.push(event),
    count: (reason) => counted.push(reason),
  });
  return { f, counted, logged };
}

describe("SourceFailover", () => {
  it("moves to the next source on each failure, wrapping, and counts by reason", () => {
    const { f, counted, logged } = controller();
    assert.equal(f.current().index, 0);
    assert.equal(f.fail("http_error", "upstream answered 404", 1000), false);
    assert.equal(f.current().index, 1);
    assert.equal(f.fail("no_bytes", "silent", 2000), false);
    assert.equal(f.current().index, 2);
    // The third failure in a row without media: every source is down.
    assert.equal(f.fail("dropped", "dropped", 3000), true);
    assert.equal(f.current().index, 0);
    assert.equal(f.allDownSince, 3000);
    assert.equal(f.failovers, 3);
    assert.deepEqual(counted, ["http_error", "no_bytes", "dropped"]);
    assert.deepEqual(logged, ["source failover", "source failover", "source failover"]);
    f.delivering();
    assert.equal(f.allDownSince, undefined);
    assert.equal(f.fail("dropped", "dropped", 4000), false, "a delivering source resets the count");
  });

  it("fails back only after failbackMs of healthy probes, a failed probe restarting the clock", () => {
    const { f } = controller(10_000);
    f.fail("dropped", "x", 0);
    f.fail("dropped", "x", 0);
    assert.equal(f.active, 2);
    assert.deepEqual(
      f.higher().map((s) => s.index),
      [0, 1],
    );
    let told = 0;
    f.onSwitch(() => {
      told += 1;
    });
    assert.equal(f.probed(0, true, 1_000), false);
    assert.equal(f.probed(0, false, 5_000), false);
    assert.equal(f.probed(0, true, 6_000), false);
    assert.equal(f.probed(0, true, 15_999), false);
    assert.equal(f.probed(0, true, 16_000), true);
    assert.equal(f.active, 0);
    assert.equal(told, 1);
    assert.equal(f.failovers, 2, "a failback is not a failover");
    assert.equal(f.probed(1, true, 99_000), false, "never back to a lower source");
  });
});

describe("slateHeightFor", () => {
  for (const [height, want] of [
    [null, 720],
    [0, 720],
    [360, 480],
    [576, 480],
    [720, 720],
    [900, 720],
    [1000, 1080],
    [2160, 1080],
  ] as const) {
    it(`${height} → ${want}`, () => assert.equal(slateHeightFor(height), want));
  }
});
