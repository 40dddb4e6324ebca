import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startGateway, tempDir } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/** The sqlite3 shell, as docs/deploy.md "Backups" runs it. */
const sqlite = (db: string, sql: string) =>
  execFileSync("sqlite3", [db, sql], { encoding: "utf8" }).trim();

describe("docs/deploy.md backup recipe: VACUUM INTO while the full gateway runs", () => {
  it("copies a consistent state database that a new gateway starts from", async () => {
    const dir = tempDir("svc-backup-");
    const auth = authSection();
    try {
      const gw = await startGateway(
        "full",
        {
          auth,
          channels: [
            { id: "one", title: "One", ingress: "hls", source_url: "http://127.0.0.1:9/1.m3u8" },
          ],
        },
        { dir },
      );
      const backup = join(dir, "backup", "state-backup.db");
      try {
        const token = await login(gw.url, "admin", ADMIN_PASSWORD);
        const created = await requestJson(`${gw.url}/v1/admin/channels`, {
          token,
          body: {
            id: "two",
            title: "Two",
            ingress: "hls",
            source_url: "http://127.0.0.1:9/2.m3u8",
          },
        });
        assert.equal(created.status, 201, created.text);
        mkdirSync(join(dir, "backup"));
        // The recipe, word for word, against the live database (WAL mode, open in the gateway).
        sqlite(join(gw.dataDir, "state.db"), `VACUUM INTO '${backup}'`);
        // The gateway kept serving during and after the copy.
        assert.equal((await requestJson(`${gw.url}/healthz`)).status, 200);
      } finally {
        assert.equal(await gw.stop(), 0);
      }
      assert.equal(sqlite(backup, "PRAGMA integrity_check"), "ok");
      assert.equal(
        sqlite(backup, "SELECT group_concat(id, ',') FROM (SELECT id FROM channels ORDER BY id)"),
        "one,two",
      );

      // Restore: the copy becomes state.db of a new data dir; a config without channels
      // shows the channels came from the backup.
      const restored = join(dir, "restored");
      mkdirSync(restored);
      execFileSync("cp", [backup, join(restored, "state.db")]);
      const again = await startGateway(
        "full",
        { auth, server: { data_dir: restored } },
        { env: { SVC_LOG_LEVEL: "info", SVC_LOG_FORMAT: "json" }, dir: join(dir) },
      );
      try {
        assert.match(again.stdout(), /"msg":"channels: 2"/);
        const token = await login(again.url, "admin", ADMIN_PASSWORD);
        const list = await requestJson(`${again.url}/v1/admin/channels`, { token });
        assert.deepEqual(list.body.channels.map((c: { id: string }) => c.id).sort(), [
          "one",
          "two",
        ]);
      } finally {
        assert.equal(await again.stop(), 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
