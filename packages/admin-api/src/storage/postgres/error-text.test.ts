import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeDbError, withoutSecrets } from "./error-text.js";

/** node-postgres's server error: a class named DatabaseError with severity and SQLSTATE. */
class DatabaseError extends Error {}
const pgError = (message: string, code: string, fields: Record<string, string>) =>
  Object.assign(new DatabaseError(message), { severity: "ERROR", code, ...fields });

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
    [
      "a SQLite error under drizzle's: class and code, no statement, no parameters",
      new Error("Failed query: update t set v = ?\nparams: proxy-pw-1", {
        cause: Object.assign(new Error("constraint failed"), {
          name: "SqliteError",
          code: "SQLITE_CONSTRAINT_TRIGGER",
        }),
      }),
      "SqliteError SQLITE_CONSTRAINT_TRIGGER",
    ],
    [
      "a PostgreSQL data error quoting a value: its text withheld",
      pgError('invalid input syntax for type integer: "hdr-secret-1"', "22P02", {}),
      "DatabaseError 22P02",
    ],
    [
      "a PostgreSQL unique violation: the constraint named, the row in detail left out",
      pgError('duplicate key value violates unique constraint "channels_pkey"', "23505", {
        table: "channels",
        constraint: "channels_pkey",
        detail: "Key (id)=(hdr-secret-1) already exists.",
      }),
      "DatabaseError 23505 (channels.channels_pkey)",
    ],
    [
      "a PostgreSQL login failure: the server's text kept",
      pgError('password authentication failed for user "svc"', "28P01", {}),
      'password authentication failed for user "svc"',
    ],
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
