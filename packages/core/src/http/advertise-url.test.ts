import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAdvertisedUrl, isWildcardListenUrl, resolveAdvertiseUrl } from "./advertise-url.js";

describe("advertise_url", () => {
  const rows: [configured: string, listen: string, expected: string][] = [
    ["", "http://127.0.0.1:40123", "http://127.0.0.1:40123"],
    ["", "http://[::1]:8080", "http://[::1]:8080"],
    ["http://10.0.0.5:8080", "http://0.0.0.0:8080", "http://10.0.0.5:8080"],
    ["https://gw-1.internal/tv/", "http://127.0.0.1:8080", "https://gw-1.internal/tv"],
    ["http://gw-1:8080//", "http://127.0.0.1:8080", "http://gw-1:8080"],
  ];
  for (const [configured, listen, expected] of rows)
    it(`"${configured}" on ${listen} → ${expected}`, () =>
      assert.equal(resolveAdvertiseUrl(configured, listen), expected));

  it("is known only once the listener is up", () => {
    const a = createAdvertisedUrl("");
    assert.throws(() => a.url(), /once the listener is up/);
    assert.equal(a.resolve("http://127.0.0.1:5000"), "http://127.0.0.1:5000");
    assert.equal(a.url(), "http://127.0.0.1:5000");
    assert.equal(a.configured, "");
  });

  it("tells wildcard listeners apart", () => {
    assert.equal(isWildcardListenUrl("http://0.0.0.0:8080"), true);
    assert.equal(isWildcardListenUrl("http://[::]:8080"), true);
    assert.equal(isWildcardListenUrl("http://127.0.0.1:8080"), false);
    assert.equal(isWildcardListenUrl("http://[::1]:8080"), false);
  });
});
