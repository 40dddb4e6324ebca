import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CarryMode, carrySecrets, sourceOrigin } from "./source-secrets.js";

const KID = "0123456789abcdef0123456789abcdef";
const KEY = "fedcba9876543210fedcba9876543210";
const STORED = {
  headers: { Authorization: "Bearer s1", "X-Api-Key": "s2", Referer: "http://a/" },
  keys: { [KID]: KEY },
};
const A = "http://127.0.0.1:8001";

const CASES: {
  name: string;
  to: string | undefined;
  mode: CarryMode;
  written: { headers: Record<string, string>; keys: Record<string, string> };
  headers: Record<string, string>;
  keys: Record<string, string>;
  dropped: string[];
}[] = [
  {
    name: "replace, same origin: blanks keep everything",
    to: A,
    mode: "replace",
    written: { headers: { authorization: "", "X-Api-Key": "", Referer: "" }, keys: { [KID]: "" } },
    headers: { authorization: "Bearer s1", "X-Api-Key": "s2", Referer: "http://a/" },
    keys: { [KID]: KEY },
    dropped: [],
  },
  {
    name: "replace, other port: blank secrets dropped, the plain header kept",
    to: "http://127.0.0.1:8002",
    mode: "replace",
    written: { headers: { Authorization: "", "X-Api-Key": "", Referer: "" }, keys: { [KID]: "" } },
    headers: { Referer: "http://a/" },
    keys: {},
    dropped: ["headers.Authorization", "headers.X-Api-Key", `keys.${KID}`],
  },
  {
    name: "replace, other scheme: a value written anew is the writer's own",
    to: "https://127.0.0.1:8001",
    mode: "replace",
    written: { headers: { Authorization: "Bearer new" }, keys: { [KID]: KEY } },
    headers: { Authorization: "Bearer new" },
    keys: { [KID]: KEY },
    dropped: [],
  },
  {
    name: "merge, same origin: unstated names stay",
    to: A,
    mode: "merge",
    written: { headers: { Referer: "http://b/" }, keys: {} },
    headers: { Authorization: "Bearer s1", "X-Api-Key": "s2", Referer: "http://b/" },
    keys: { [KID]: KEY },
    dropped: [],
  },
  {
    name: "merge, other host: unstated secrets dropped",
    to: "http://127.0.0.2:8001",
    mode: "merge",
    written: { headers: { "x-api-key": "s9" }, keys: {} },
    headers: { Referer: "http://a/", "x-api-key": "s9" },
    keys: {},
    dropped: ["headers.Authorization", `keys.${KID}`],
  },
  {
    name: "no origin to move to (an unknown upstream): nothing secret follows",
    to: undefined,
    mode: "merge",
    written: { headers: {}, keys: {} },
    headers: { Referer: "http://a/" },
    keys: {},
    dropped: ["headers.Authorization", "headers.X-Api-Key", `keys.${KID}`],
  },
];

describe("carrySecrets (issue 30 item 2)", () => {
  for (const c of CASES)
    it(c.name, () => {
      const r = carrySecrets({
        from: A,
        to: c.to,
        stored: STORED,
        written: c.written,
        mode: c.mode,
      });
      assert.deepEqual(r, { headers: c.headers, keys: c.keys, dropped: c.dropped });
    });

  it("sourceOrigin folds the default port and refuses what has no http(s) origin", () => {
    assert.equal(sourceOrigin("http://127.0.0.1:80/a?b"), "http://127.0.0.1");
    assert.equal(sourceOrigin("HTTP://LOCALHOST:8080/x"), "http://localhost:8080");
    assert.equal(sourceOrigin("ftp://127.0.0.1/x"), undefined);
    assert.equal(sourceOrigin(""), undefined);
    assert.equal(sourceOrigin("not a url"), undefined);
  });
});
