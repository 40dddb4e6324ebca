import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPostgresUrl, redactDatabaseUrl } from "./database-url.js";
import { readEnvironment } from "./environment.js";
import { parseConfig } from "./load.js";
import { ConfigError } from "./problems.js";

const HASH = "$2b$04$abcdefghijklmnopqrstuu5Ki3RBBYQdYwGhkYX2CqOFqAPmcC0Ly";
const users = `auth:\n  users:\n    - {username: admin, password_hash: "${HASH}", role: admin}\n`;
const withUrl = (url: string) => `server:\n  database_url: ${JSON.stringify(url)}\n${users}`;

describe("isPostgresUrl", () => {
  const cases: [string, boolean][] = [
    ["postgres://svc:pw@127.0.0.1:5432/svc", true],
    ["postgresql://svc@db.internal/svc", true],
    ["postgres://[::1]:5433/svc", true],
    ["postgres:///svc?host=/run/postgresql", true],
    ["postgres:///svc", false],
    ["mysql://svc@127.0.0.1/svc", false],
    ["http://127.0.0.1:5432/svc", false],
    ["127.0.0.1:5432", false],
    ["svc", false],
    ["postgres://", false],
  ];
  for (const [url, ok] of cases) it(`${url} → ${ok}`, () => assert.equal(isPostgresUrl(url), ok));
});

describe("redactDatabaseUrl", () => {
  const cases: [string, string][] = [
    ["postgres://svc:s3cret@127.0.0.1:5432/svc", "postgres://svc@127.0.0.1:5432/svc"],
    ["postgresql://svc@db/svc?sslmode=require", "postgresql://svc@db/svc?sslmode=require"],
    [
      "postgres://svc@db/svc?password=s3cret&sslmode=require&sslpassword=k3y",
      "postgres://svc@db/svc?sslmode=require",
    ],
    ["postgres://svc:p%40ss@db/svc", "postgres://svc@db/svc"],
    ["not a url s3cret", "(unparsable database URL)"],
  ];
  for (const [url, want] of cases)
    it(`${want}`, () => {
      const got = redactDatabaseUrl(url);
      assert.equal(got, want);
      assert.ok(!got.includes("s3cret") && !got.includes("k3y"));
    });
});

describe("server.database_url", () => {
  const problems = (text: string, env = readEnvironment({})) => {
    try {
      parseConfig(text, env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('defaults to "" (embedded SQLite)', () => {
    assert.equal(parseConfig(users, readEnvironment({})).server.database_url, "");
  });

  it("rejects a URL that is not PostgreSQL's, without repeating the value", () => {
    for (const bad of [
      "mysql://u:s3cret@127.0.0.1/db",
      "u:s3cret@127.0.0.1",
      "postgres:///s3cret",
    ]) {
      const got = problems(withUrl(bad));
      assert.equal(got.length, 1, JSON.stringify(got));
      assert.equal(got[0]!.path, "server.database_url");
      assert.match(got[0]!.message, /postgres:\/\/ or postgresql:\/\//);
      assert.ok(!JSON.stringify(got).includes("s3cret"));
    }
  });

  it("SVC_DATABASE_URL overrides the file and is checked like it", () => {
    const env = readEnvironment({ SVC_DATABASE_URL: "postgres://svc:pw@127.0.0.1:5432/env" });
    const c = parseConfig(withUrl("postgres://svc@127.0.0.1:5432/file"), env);
    assert.equal(c.server.database_url, "postgres://svc:pw@127.0.0.1:5432/env");
    const bad = readEnvironment({ SVC_DATABASE_URL: "s3cret" });
    const got = problems(withUrl("postgres://svc@127.0.0.1/file"), bad);
    assert.deepEqual(
      got.map((p) => p.path),
      ["server.database_url"],
    );
    assert.ok(!JSON.stringify(got).includes("s3cret"));
    // Empty means unset, as with the other variables: the file's value stays.
    const empty = parseConfig(
      withUrl("postgres://svc@127.0.0.1/file"),
      readEnvironment({ SVC_DATABASE_URL: "" }),
    );
    assert.equal(empty.server.database_url, "postgres://svc@127.0.0.1/file");
  });
});
