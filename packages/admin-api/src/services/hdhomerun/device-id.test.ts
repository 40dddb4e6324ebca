import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deviceIdOf, isValidDeviceId } from "./device-id.js";

describe("HDHomeRun DeviceID", () => {
  it("checks the SiliconDust check digit", () => {
    const cases: [string, boolean][] = [
      ["1013FADA", true],
      ["10A3B7C0", true],
      ["12345674", true],
      ["ABCDEF01", true],
      ["12345670", false],
      ["12345678", false],
      ["1013FADB", false],
      ["1013fada", true],
      ["1013FAD", false],
      ["1013FADAA", false],
      ["G013FADA", false],
    ];
    for (const [id, valid] of cases) assert.equal(isValidDeviceId(id), valid, id);
  });

  it("derives 8 upper-case hex digits with a valid check digit, stable per key", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = deviceIdOf(`pk_${i}`);
      assert.match(id, /^[0-9A-F]{8}$/);
      assert.ok(isValidDeviceId(id), id);
      assert.notEqual(id, "FFFFFFFF");
      assert.notEqual(id, "00000000");
      assert.equal(deviceIdOf(`pk_${i}`), id);
      seen.add(id);
    }
    // Distinct keys, distinct devices (Plex keeps tuners apart by DeviceID).
    assert.equal(seen.size, 500);
  });
});
