import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHostAllowlist, parseAllowedHost } from "./host-allowlist.js";

describe("security.allowed_hosts entries (issue 12 item 5)", () => {
  const cases: [string, ReturnType<typeof parseAllowedHost>][] = [
    ["127.0.0.1", { host: "127.0.0.1", port: undefined }],
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["Media.Example.:443", { host: "media.example", port: 443 }],
    ["::1", { host: "::1", port: undefined }],
    ["[::1]", { host: "::1", port: undefined }],
    ["[0:0::1]:9000", { host: "::1", port: 9000 }],
    ["127.0.0.1:0", undefined],
    ["127.0.0.1:65536", undefined],
    ["127.0.0.1:http", undefined],
    ["[::1]:", undefined],
    [":80", undefined],
  ];
  for (const [entry, want] of cases)
    it(`parses ${JSON.stringify(entry)}`, () => assert.deepEqual(parseAllowedHost(entry), want));

  it("a bare host exempts every port, host:port only that port", () => {
    const list = createHostAllowlist(["127.0.0.1:8080", "[::1]:9000", "localhost"]);
    assert.equal(list.has("127.0.0.1", 8080), true);
    assert.equal(list.has("127.0.0.1", 8081), false);
    assert.equal(list.has("127.0.0.1"), false);
    assert.equal(list.has("[::1]", 9000), true);
    assert.equal(list.has("::1", 9001), false);
    assert.equal(list.has("LOCALHOST", 1), true);
    assert.equal(list.has("localhost", 65535), true);
    assert.equal(list.has("127.0.0.2", 8080), false);
  });
  it("a bare entry for a host wins over port entries for it", () => {
    const list = createHostAllowlist(["127.0.0.1:8080", "127.0.0.1"]);
    assert.equal(list.has("127.0.0.1", 1234), true);
  });
});
