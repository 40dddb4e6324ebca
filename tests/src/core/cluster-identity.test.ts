import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runExpectingExit, tempDir } from "../harness/gateway-process.js";
import { ed25519Pair } from "../harness/keys.js";
import { runBinary } from "../harness/run-binary.js";
import { hashFor } from "../harness/users.js";

const REASON = "required in cluster mode (server.database_url is set)";
const PASSWORD = "pg-password-never-printed";

// Contract "Cluster mode": a cluster config without its shared identity exits 2 with one
// line per missing key, before any database connection and before anything is written
// into data_dir (no generated key). The database URL points at a loopback listener that
// counts connections: it must see none.
describe("full: cluster mode refuses a config without the shared identity", () => {
  let db: Server;
  let connections = 0;
  let dbUrl: string;
  const dir = tempDir("svc-cluster-");
  const pair = ed25519Pair();
  const keyFile = join(dir, "ed25519.pem");
  const hash = hashFor("password-1");
  const dataDir = join(dir, "data");

  /** The config text: the listed parts only, users always, data_dir a path nobody creates. */
  const config = (parts: { database?: boolean; sessionKey?: boolean; signingKey?: boolean }) => {
    const server = [`listen: "127.0.0.1:0"`, `data_dir: ${JSON.stringify(dataDir)}`];
    if (parts.database) server.push(`database_url: ${JSON.stringify(dbUrl)}`);
    const auth = [`users:\n    - {username: admin, password_hash: "${hash}", role: admin}`];
    if (parts.sessionKey) auth.push(`token_private_key_file: ${JSON.stringify(keyFile)}`);
    const security = parts.signingKey ? `security:\n  signing_key: "${"k".repeat(40)}"\n` : "";
    return `server:\n  ${server.join("\n  ")}\nauth:\n  ${auth.join("\n  ")}\n${security}`;
  };

  before(async () => {
    writeFileSync(keyFile, pair.privatePem, { mode: 0o600 });
    db = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => db.listen(0, "127.0.0.1", resolve));
    const port = (db.address() as { port: number }).port;
    dbUrl = `postgres://gw:${PASSWORD}@127.0.0.1:${port}/gw`;
  });
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows: {
    name: string;
    parts: Parameters<typeof config>[0];
    env?: (url: string) => Record<string, string>;
    lines: string[];
  }[] = [
    {
      name: "no session key",
      parts: { database: true, signingKey: true },
      lines: [`auth.token_private_key: ${REASON}`],
    },
    {
      name: "no signing key",
      parts: { database: true, sessionKey: true },
      lines: [`security.signing_key: ${REASON}`],
    },
    {
      name: "neither key",
      parts: { database: true },
      lines: [`auth.token_private_key: ${REASON}`, `security.signing_key: ${REASON}`],
    },
    {
      name: "no signing key, the database URL from SVC_DATABASE_URL",
      parts: { sessionKey: true },
      env: (url) => ({ SVC_DATABASE_URL: url }),
      lines: [`security.signing_key: ${REASON}`],
    },
  ];
  for (const row of rows) {
    it(`${row.name}: exit 2, ${row.lines.length} line(s), no connection, nothing written`, async () => {
      const before = connections;
      const r = await runExpectingExit("full", config(row.parts), { env: row.env?.(dbUrl) ?? {} });
      assert.equal(r.code, 2, r.stderr);
      assert.deepEqual(r.stderr.split("\n").filter(Boolean), row.lines);
      assert.doesNotMatch(r.stdout, /listening on/);
      assert.equal(connections, before, "no connection to the database");
      assert.equal(existsSync(dataDir), false, "data_dir untouched: no generated key, no lock");
      assert.equal(`${r.stdout}${r.stderr}`.includes(PASSWORD), false);
    });
  }

  it("--check-config names the same lines (full); the lite build ignores database_url", async () => {
    const path = join(dir, "check.yaml");
    writeFileSync(path, config({ database: true, signingKey: true }));
    const full = await runBinary("full", ["--config", path, "--check-config"], { cwd: dir });
    assert.equal(full.code, 2);
    assert.deepEqual(full.stderr.split("\n").filter(Boolean), [
      `auth.token_private_key: ${REASON}`,
    ]);
    const lite = await runBinary("lite", ["--config", path, "--check-config"], { cwd: dir });
    assert.equal(lite.code, 0, lite.stderr);
    assert.equal(connections, 0);
    assert.equal(`${full.stderr}${lite.stdout}${lite.stderr}`.includes(PASSWORD), false);
  });

  it("an advertise_url with a query is refused, naming the key", async () => {
    const text = config({ sessionKey: true, signingKey: true }).replace(
      "server:\n",
      'server:\n  advertise_url: "http://10.0.0.5:8080/?x=1"\n',
    );
    const r = await runExpectingExit("full", text);
    assert.equal(r.code, 2);
    assert.deepEqual(r.stderr.split("\n").filter(Boolean), [
      "server.advertise_url: must be an absolute http(s) URL without user, query or fragment",
    ]);
  });
});
