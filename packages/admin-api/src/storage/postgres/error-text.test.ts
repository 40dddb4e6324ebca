import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeDbError, withoutSecrets } from "./error-text.js";

describe("describeDbError", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
    code: "ECONNREFUSED",
  });
  const cases: [string, unknown, string][] = [
    [
      "a plain error",
      new Error('password authentication failed for user "svc"'),
      'password authentication failed for user "svc"',
    ],
    [
      "drizzle's query error: the server's reason, not the statement",
      new Error('Failed query: CREATE TABLE "x" (\n\t"id" text\n);\nparams: ', {
        cause: new Error('relation "x" already exists'),
      }),
      'relation "x" already exists',
    ],
    [
      "an AggregateError without a message",
      new AggregateError([refused], ""),
      "connect ECONNREFUSED 127.0.0.1:1",
    ],
    ["an error with only a code", Object.assign(new Error(""), { code: "ETIMEDOUT" }), "ETIMEDOUT"],
    ["several lines", new Error("first\n  second"), "first second"],
    ["not an error", "text", "text"],
  ];
  for (const [name, err, want] of cases) it(name, () => assert.equal(describeDbError(err), want));
});

describe("withoutSecrets", () => {
  it("masks the URL's password, encoded or not, and a password parameter", () => {
    const url = "postgres://svc:p%40ss-1234@db/svc?password=q-5678";
    assert.equal(withoutSecrets("p@ss-1234 p%40ss-1234 q-5678 kept", url), "*** *** *** kept");
    assert.equal(withoutSecrets("nothing here", "postgres://svc@db/svc"), "nothing here");
  });
});
