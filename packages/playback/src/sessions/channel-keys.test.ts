import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { parseConfig, readEnvironment } from "@svc/core/config";
import { channelKeyTable } from "./session-manager.js";

const HASH = "$2b$10$abcdefghijklmnopqrstuuK5o2cDMOvXY3ZQ4Sd3dSg0F7Jh0i4m2";
const A = "0123456789ABCDEF0123456789ABCDEF";
const B = "fedcba98-7654-3210-fedc-ba9876543210";
const K1 = "11111111111111111111111111111111";
const K2 = "22222222222222222222222222222222";

describe("channelKeyTable", () => {
  const config = parseConfig(
    [
      "server:",
      '  data_dir: "/tmp/unused"',
      "auth:",
      "  users:",
      "    - username: admin",
      `      password_hash: "${HASH}"`,
      "      role: admin",
      "media:",
      "  keys:",
      `    "${A}": "${K1}"`,
      `    "${B.replaceAll("-", "")}": "${K1}"`,
    ].join("\n"),
    readEnvironment({}),
  );

  it("takes media.keys, with the channel's own keys overriding the same KID in any spelling", () => {
    const table = channelKeyTable(config, {
      keys: { [A.toLowerCase()]: K2 },
    } as unknown as Channel);
    assert.deepEqual(
      [...table].map(([kid, key]) => [kid, key.toString("hex")]),
      [
        [A.toLowerCase(), K2],
        [B.replaceAll("-", ""), K1],
      ],
    );
  });

  it("is media.keys alone for a channel without keys (or one that is gone)", () => {
    assert.equal(channelKeyTable(config, undefined).get(A.toLowerCase())?.toString("hex"), K1);
  });
});
