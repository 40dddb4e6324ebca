import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EngineResolution, EngineSetting, NativeInspection } from "./inspection-model.js";
import { resolveEngine } from "./resolve-engine.js";

const supported: NativeInspection = {
  native_supported: true,
  suggested_engine: "native",
  reason: null,
  encrypted: false,
  kids: [],
};
const unsupported: NativeInspection = {
  native_supported: false,
  suggested_engine: "ffmpeg",
  reason: "Representation v1 uses SegmentList addressing",
  encrypted: false,
  kids: [],
};

const rows: [EngineSetting, NativeInspection, EngineResolution][] = [
  ["auto", supported, { engine: "native", fallback_reason: null }],
  [
    "auto",
    unsupported,
    { engine: "ffmpeg", fallback_reason: "Representation v1 uses SegmentList addressing" },
  ],
  ["native", supported, { engine: "native", fallback_reason: null }],
  [
    "native",
    unsupported,
    {
      engine: "native",
      fallback_reason:
        "native engine forced by the channel although: Representation v1 uses SegmentList addressing",
    },
  ],
  ["ffmpeg", supported, { engine: "ffmpeg", fallback_reason: "channel engine is set to ffmpeg" }],
  ["ffmpeg", unsupported, { engine: "ffmpeg", fallback_reason: "channel engine is set to ffmpeg" }],
];

describe("resolveEngine", () => {
  for (const [setting, inspection, expected] of rows) {
    it(`${setting} + ${inspection.native_supported ? "supported" : "unsupported"} → ${expected.engine}`, () => {
      assert.deepEqual(resolveEngine(setting, inspection), expected);
    });
  }
});
