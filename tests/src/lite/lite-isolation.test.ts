import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { type Build, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

/** Shared objects mapped into a running process (native addons show up here once loaded). */
function mappedLibraries(pid: number): string {
  return readFileSync(`/proc/${pid}/maps`, "utf8");
}

async function mapsAfterUse(build: Build): Promise<string> {
  const gw = await startGateway(build, {
    auth: authSection(),
    channels: [{ id: "a", title: "A", ingress: "hls", source_url: "http://127.0.0.1:9/a.m3u8" }],
  });
  try {
    const token = await login(gw.url, "admin", ADMIN_PASSWORD);
    await requestJson(`${gw.url}/v1/playlist.m3u`, { token });
    await requestJson(`${gw.url}/readyz`);
    return mappedLibraries(gw.proc.pid!);
  } finally {
    await gw.stop();
  }
}

describe("the lite binary and the database", () => {
  it("never loads better-sqlite3, while the full binary does", async () => {
    const lite = await mapsAfterUse("lite");
    assert.match(
      lite,
      /bcrypt/,
      "control: native addons the lite build uses do appear in the maps",
    );
    assert.ok(!/better_sqlite3/.test(lite), "better-sqlite3 is mapped into the lite process");
    const full = await mapsAfterUse("full");
    assert.ok(/better_sqlite3\.node/.test(full), "the full build opens its state database");
  });
});
