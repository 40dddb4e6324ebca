import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readEnvironment } from "./environment.js";
import { parseConfig } from "./load.js";
import { ConfigError } from "./problems.js";
import { workerCount, workerProblems } from "./workers.js";

const USERS =
  'auth:\n  users:\n    - {username: admin, password_hash: "$2b$04$abcdefghijklmnopqrstuu5Ki3RBBYQdYwGhkYX2CqOFqAPmcC0Ly", role: admin}\n';

const parse = (server: string, env: Record<string, string> = {}) =>
  parseConfig(`${USERS}server: ${server}\n`, readEnvironment(env));

const problemsOf = (f: () => unknown) => {
  try {
    f();
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => p.path);
  }
};

describe("server.workers", () => {
  it("defaults to 1: one process", () => {
    const c = parse("{}");
    assert.equal(c.server.workers, 1);
    assert.equal(workerCount(c), 1);
    assert.deepEqual(workerProblems(c, "full"), []);
  });

  it("takes auto (one per core) and 1..64", () => {
    assert.equal(workerCount(parse("{workers: auto}"), 6), 6);
    assert.equal(workerCount(parse("{workers: 64}")), 64);
    for (const bad of ["0", "65", "1.5", "many", '"2"'])
      assert.deepEqual(
        problemsOf(() => parse(`{workers: ${bad}}`)),
        ["server.workers"],
        bad,
      );
  });

  it("SVC_WORKERS overrides the file and is checked like it", () => {
    assert.equal(parse("{workers: 1}", { SVC_WORKERS: "3" }).server.workers, 3);
    assert.equal(parse("{}", { SVC_WORKERS: "auto" }).server.workers, "auto");
    assert.deepEqual(
      problemsOf(() => parse("{}", { SVC_WORKERS: "0" })),
      ["server.workers"],
    );
  });

  it("refuses more than one in the lite build and with PostgreSQL", () => {
    assert.deepEqual(
      workerProblems(parse("{workers: 2}"), "lite").map((p) => p.path),
      ["server.workers"],
    );
    assert.deepEqual(workerProblems(parse("{workers: 1}"), "lite"), []);
    const pg = parse('{workers: 2, database_url: "postgres://svc@127.0.0.1:5432/svc"}');
    assert.deepEqual(
      workerProblems(pg, "full").map((p) => p.path),
      ["server.workers"],
    );
  });
});
