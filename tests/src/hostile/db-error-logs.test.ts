import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { createDatabase } from "../harness/postgres-server.js";
import { TEST_STORAGE } from "../harness/storage-mode.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/**
 * Issue 30 item 7: a failing database write is logged without its statement,
 * its parameters or the database's text about them. On PostgreSQL drizzle's
 * query error carries the whole statement with its parameters (here the egress
 * document, with a proxy URL and its password); on both databases the driver's
 * message can quote a value (a trigger's RAISE, a data error, a function's
 * error). The error handler logged all of it. The write is refused by a trigger
 * the test puts on the real database while the gateway runs, whose message
 * quotes the new row.
 */
describe(`full (${TEST_STORAGE}): a database write that fails logs no secret`, () => {
  const canary = `cnrydbpw${randomBytes(6).toString("hex")}`;
  let gw: GatewayProcess;
  let databaseUrl: string | undefined;
  let admin = "";

  before(async () => {
    // PostgreSQL pass: a database the test can reach too (the harness keeps a given URL).
    databaseUrl = TEST_STORAGE === "postgres" ? await createDatabase() : undefined;
    gw = await startGateway(
      "full",
      { auth: authSection([], { login_rate_per_min: 1000 }), channels: [] },
      {
        env: {
          SVC_LOG_LEVEL: "debug",
          ...(databaseUrl === undefined ? {} : { SVC_DATABASE_URL: databaseUrl }),
        },
      },
    );
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
  });

  /** Every update of the egress row fails inside the database from now on. */
  async function refuseEgressWrites(): Promise<void> {
    if (databaseUrl === undefined) {
      const db = new Database(join(gw.dataDir, "state.db"));
      db.exec(`CREATE TRIGGER svc_test_refuse BEFORE UPDATE ON egress_config
        BEGIN SELECT RAISE(ABORT, 'refused: ' || NEW.document); END`);
      db.close();
      return;
    }
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`CREATE FUNCTION svc_test_refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'refused: %', NEW.document; END $$`);
    await client.query(`CREATE TRIGGER svc_test_refuse BEFORE UPDATE ON egress_config
      FOR EACH ROW EXECUTE FUNCTION svc_test_refuse()`);
    await client.end();
  }

  it("answers 500 internal and logs the error by class and code, the proxy password nowhere", async () => {
    const doc = await requestJson(`${gw.url}/v1/admin/egress`, { token: admin });
    assert.equal(doc.status, 200, doc.text);
    await refuseEgressWrites();
    const r = await requestJson(`${gw.url}/v1/admin/egress/proxies`, {
      token: admin,
      headers: { "if-match": doc.headers.get("etag") ?? "" },
      body: { id: "p1", name: "P1", url: `http://proxyuser:${canary}@127.0.0.1:3128` },
    });
    assert.equal(r.status, 500, r.text);
    assert.deepEqual(r.body, { error: { code: "internal", message: "internal server error" } });
    assert.ok(!r.text.includes(canary));

    const lines = `${gw.stdout()}\n${gw.stderr()}`.split("\n");
    const logged = lines.filter((l) => l.includes('"unhandled error"'));
    assert.equal(logged.length, 1, lines.join("\n"));
    const record = JSON.parse(logged[0]!);
    // The driver's error (under drizzle's on PostgreSQL; better-sqlite3's synchronous
    // calls are not wrapped), by class and code.
    const driver = databaseUrl === undefined ? record.err : record.err.cause;
    if (databaseUrl !== undefined) assert.equal(record.err.type, "DrizzleQueryError");
    assert.equal(driver.type, databaseUrl === undefined ? "SqliteError" : "DatabaseError");
    assert.equal(driver.code, databaseUrl === undefined ? "SQLITE_CONSTRAINT_TRIGGER" : "P0001");
    assert.equal(driver.message, undefined);
    for (const line of lines) {
      assert.ok(!line.includes(canary), `the proxy password in a log line: ${line}`);
      assert.ok(!line.includes("Failed query"), `a statement in a log line: ${line}`);
    }
  });
});
