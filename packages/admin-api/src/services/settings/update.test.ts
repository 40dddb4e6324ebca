import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseConfig, readEnvironment } from "@svc/core/config";
import { GatewayError } from "@svc/core/errors";
import { openStateDatabase } from "../../db/client.js";
import { sqliteDialect } from "../../storage/dialect/dialect.js";
import { settingsRepository } from "../../storage/single-row-repository.js";
import { createSettingsStore } from "./settings-store.js";
import { parseRetentionDays, updateSettings } from "./update.js";

const HASH = "$2b$04$abcdefghijklmnopqrstuu1234567890123456789012345678901";

describe("settings update", () => {
  it("parses retention strings 1..3650 only", () => {
    assert.equal(parseRetentionDays("1"), 1);
    assert.equal(parseRetentionDays("3650"), 3650);
    for (const bad of ["0", "3651", "-1", "1.5", "", "ten", "1e3"]) {
      assert.throws(() => parseRetentionDays(bad), GatewayError, bad);
    }
  });

  it("persists, bumps the revision, keeps tls_enabled, purges at once when retention shrinks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-settings-"));
    const config = parseConfig(
      [
        "server:",
        `  data_dir: "${dir}"`,
        '  public_base_url: "https://seed.example"',
        "auth:",
        "  users:",
        "    - username: admin",
        `      password_hash: "${HASH}"`,
        "      role: admin",
      ].join("\n"),
      readEnvironment({}),
    );
    const state = openStateDatabase(dir);
    try {
      const repository = settingsRepository(sqliteDialect(state.db));
      const store = await createSettingsStore(repository, config);
      assert.equal(store.current().publicBaseUrl, "https://seed.example");
      assert.equal(store.current().accessLogRetentionDays, 30);
      const purged: number[] = [];
      const purge = (days: number) => void purged.push(days);
      const a = await updateSettings(store, purge, '"1"', {
        public_base_url: "https://tv.example/",
        access_log_retention_days: "90",
        tls_enabled: true,
      });
      assert.equal(a.revision, 2);
      assert.equal(a.publicBaseUrl, "https://tv.example");
      assert.deepEqual(purged, []);
      const b = await updateSettings(store, purge, "2", {
        public_base_url: "",
        access_log_retention_days: "7",
      });
      assert.equal(b.tlsEnabled, true);
      assert.deepEqual(purged, [7]);
      // Another store over the same file reads the committed row.
      assert.deepEqual((await createSettingsStore(repository, config)).current(), b);
      await assert.rejects(
        () =>
          updateSettings(store, purge, undefined, {
            public_base_url: "",
            access_log_retention_days: "7",
          }),
        (e) => e instanceof GatewayError && e.status === 409,
      );
    } finally {
      state.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
