import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertClusterIdentity, clusterIdentityProblems } from "./cluster-identity.js";
import { readEnvironment } from "./environment.js";
import { parseConfig } from "./load.js";
import { ConfigError, formatProblem } from "./problems.js";

const HASH = "$2b$04$abcdefghijklmnopqrstuu5Ki3RBBYQdYwGhkYX2CqOFqAPmcC0Ly";
const USERS = `auth:\n  users:\n    - {username: admin, password_hash: "${HASH}", role: admin}\n`;
const DB = "postgres://gw@127.0.0.1:9/gw";
const SIGNING = "s".repeat(32);
const REASON = "required in cluster mode (server.database_url is set)";

/** The lines the binary prints for a config (key material given by `auth` and `security`). */
function lines(yaml: string, env: Record<string, string> = {}): string[] {
  return clusterIdentityProblems(parseConfig(yaml, readEnvironment(env))).map(formatProblem);
}

describe('cluster identity (contract "Cluster mode")', () => {
  const rows: [name: string, yaml: string, env: Record<string, string>, expected: string[]][] = [
    ["no database_url: nothing required", USERS, {}, []],
    [
      "database_url, neither key",
      `${USERS}server: {database_url: "${DB}"}\n`,
      {},
      [`auth.token_private_key: ${REASON}`, `security.signing_key: ${REASON}`],
    ],
    [
      "database_url, only the signing key",
      `${USERS}server: {database_url: "${DB}"}\nsecurity: {signing_key: "${SIGNING}"}\n`,
      {},
      [`auth.token_private_key: ${REASON}`],
    ],
    [
      "database_url, only the session key file",
      `${USERS.replace("auth:\n", "auth:\n  token_private_key_file: /keys/ed25519.pem\n")}server: {database_url: "${DB}"}\n`,
      {},
      [`security.signing_key: ${REASON}`],
    ],
    [
      "SVC_DATABASE_URL and SVC_TOKEN_PRIVATE_KEY_FILE from the environment",
      `${USERS}security: {signing_key: "${SIGNING}"}\n`,
      { SVC_DATABASE_URL: DB, SVC_TOKEN_PRIVATE_KEY_FILE: "/keys/ed25519.pem" },
      [],
    ],
    [
      "SVC_DATABASE_URL alone",
      `${USERS}security: {signing_key: "${SIGNING}"}\n`,
      { SVC_DATABASE_URL: DB },
      [`auth.token_private_key: ${REASON}`],
    ],
  ];
  for (const [name, yaml, env, expected] of rows)
    it(name, () => assert.deepEqual(lines(yaml, env), expected));

  it("assertClusterIdentity throws a ConfigError with those problems", () => {
    const config = parseConfig(`${USERS}server: {database_url: "${DB}"}\n`, readEnvironment({}));
    assert.throws(
      () => assertClusterIdentity(config),
      (err) => err instanceof ConfigError && err.problems.length === 2,
    );
    assert.doesNotThrow(() => assertClusterIdentity(parseConfig(USERS, readEnvironment({}))));
  });
});
