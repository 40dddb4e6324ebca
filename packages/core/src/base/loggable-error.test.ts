import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loggableError } from "./loggable-error.js";

const SECRET = "cnry-db-secret-1";

/** drizzle's DrizzleQueryError as drizzle-orm 0.45 builds it. */
class DrizzleQueryError extends Error {
  constructor(
    readonly query: string,
    readonly params: unknown[],
    cause: Error,
  ) {
    super(`Failed query: ${query}\nparams: ${params}`, { cause });
  }
}
class SqliteError extends Error {
  override name = "SqliteError";
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
/** node-postgres's server error. */
class DatabaseError extends Error {
  severity = "ERROR";
  constructor(
    message: string,
    readonly code: string,
    readonly detail?: string,
    readonly table?: string,
  ) {
    super(message);
  }
}

describe("loggableError", () => {
  const cases: [string, Error, Record<string, unknown>][] = [
    [
      "drizzle over SQLite: class and code only",
      new DrizzleQueryError(
        'update "egress_config" set "document" = ?',
        [`{"url":"http://u:${SECRET}@127.0.0.1:3128"}`],
        new SqliteError(`bad ${SECRET}`, "SQLITE_READONLY"),
      ),
      { type: "DrizzleQueryError", cause: { type: "SqliteError", code: "SQLITE_READONLY" } },
    ],
    [
      "drizzle over PostgreSQL quoting a value: no message, no detail",
      new DrizzleQueryError(
        'insert into "channels" values ($1)',
        [SECRET],
        new DatabaseError(`invalid input syntax: "${SECRET}"`, "22P02", SECRET, "channels"),
      ),
      {
        type: "DrizzleQueryError",
        cause: { type: "DatabaseError", code: "22P02", severity: "ERROR", table: "channels" },
      },
    ],
    [
      "a PostgreSQL connection failure keeps its text",
      new DatabaseError('database "svc" does not exist', "3D000"),
      {
        type: "DatabaseError",
        code: "3D000",
        severity: "ERROR",
        message: 'database "svc" does not exist',
      },
    ],
    [
      "a wrapper keeps its message, its database cause loses its text",
      new Error("credential change failed", {
        cause: new SqliteError(`no ${SECRET}`, "SQLITE_BUSY"),
      }),
      {
        type: "Error",
        message: "credential change failed",
        cause: { type: "SqliteError", code: "SQLITE_BUSY" },
      },
    ],
    [
      "a system error keeps its fields",
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
        code: "ECONNREFUSED",
        port: 1,
      }),
      { type: "Error", message: "connect ECONNREFUSED 127.0.0.1:1", code: "ECONNREFUSED", port: 1 },
    ],
  ];
  for (const [name, err, want] of cases) {
    it(name, () => {
      const got = loggableError(err);
      const text = JSON.stringify(got);
      assert.ok(!text.includes(SECRET), text);
      assert.ok(!text.includes("Failed query"), text);
      const strip = (r: Record<string, unknown>): Record<string, unknown> => {
        const { stack: _stack, cause, ...rest } = r;
        return cause === undefined ? rest : { ...rest, cause: strip(cause as never) };
      };
      assert.deepEqual(strip(got as never), want);
      assert.match(String(got.stack ?? ""), /at /);
    });
  }
});
