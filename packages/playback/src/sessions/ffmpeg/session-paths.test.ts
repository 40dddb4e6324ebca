import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { channelFolderName, pidfileDir, sessionDir } from "./session-paths.js";

describe("sessionDir", () => {
  const rows: [string, string | number, string | undefined][] = [
    ["news", 3, "/data/sessions/news/3"],
    ["a.b_c-d", "g-1", "/data/sessions/a.b_c-d/g-1"],
    ["..", 1, "/data/sessions/%2E%2E/1"],
    [".", 1, "/data/sessions/%2E/1"],
    [".pids", 1, "/data/sessions/%2Epids/1"],
    ["a/b", 1, undefined],
    ["news", "../x", undefined],
    ["news", "1.2", undefined],
    ["", 1, undefined],
  ];
  for (const [id, gen, expected] of rows) {
    it(`${JSON.stringify(id)} / ${JSON.stringify(gen)}`, () => {
      const r = sessionDir("/data", id, gen);
      if (expected === undefined) assert.equal(r.ok, false);
      else assert.deepEqual(r, { ok: true, value: expected });
    });
  }
  it("pidfiles live beside the channel folders, under a name no channel maps to", () => {
    assert.equal(pidfileDir("/data"), "/data/sessions/.pids");
    assert.notEqual(channelFolderName(".pids"), ".pids");
  });
});
