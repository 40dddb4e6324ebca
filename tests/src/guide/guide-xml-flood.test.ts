import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";

// Issue 30 item 5: the XMLTV size limit (1,048,576 characters held by the parser at
// once) used to restart at every `>`, so a `<desc>` of 60 million characters with a `>`
// every 1000 was read whole into the parser's buffer. Streamed from a loopback origin
// to the built binary: it must be refused after about its first MiB.

const DESC_CHARS = 60_000_000;

/** Peak resident set of a process so far (VmHWM), MiB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1]) / 1024;
}

describe("guide: an XMLTV text flood streamed to the full binary", () => {
  it("refuses a 60-million-character desc with a `>` every 1000 characters, reading little of it", async (t) => {
    let sent = 0;
    let finished = false;
    const head = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?>\n<tv><channel id="a"><display-name>A</display-name></channel>' +
        '<programme start="20260101000000 +0000" channel="a"><title>t</title><desc>',
    );
    const piece = Buffer.from(`${"y".repeat(999)}>`.repeat(64));
    const origin = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/xml" });
      res.write(head);
      // Written as the gateway reads (backpressure): what it never read is never sent.
      const more = () => {
        while (sent < DESC_CHARS) {
          if (res.destroyed) return;
          sent += piece.length;
          if (!res.write(piece)) return void res.once("drain", more);
        }
        finished = true;
        res.end("</desc></programme></tv>");
      };
      res.on("error", () => undefined);
      more();
    });
    origin.listen(0, "127.0.0.1");
    await new Promise((r) => origin.once("listening", r));
    const { port } = origin.address() as AddressInfo;
    const gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 1000 }),
      security: { allowed_hosts: ["127.0.0.1"] },
      guide: { refresh_interval_min: 10_000, logo_repositories: [] },
    });
    try {
      const token = await login(gw.url, "admin", ADMIN_PASSWORD);
      const c = await requestJson(`${gw.url}/v1/admin/epg/sources`, {
        token,
        body: { id: "flood", url: `http://127.0.0.1:${port}/flood.xml` },
      });
      assert.equal(c.status, 201, c.text);
      const rssBefore = peakRssMb(gw.proc.pid!);
      const r = await requestJson(`${gw.url}/v1/admin/epg/refresh`, { token, method: "POST" });
      const grown = peakRssMb(gw.proc.pid!) - rssBefore;
      t.diagnostic(
        `origin sent ${(sent / 1_048_576).toFixed(1)} MiB; peak RSS +${grown.toFixed(0)} MiB`,
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.ok, false);
      const status = r.body.statuses.find((s: { source_id: string }) => s.source_id === "flood");
      assert.match(status.error, /a text node or tag longer than 1048576 characters/);
      assert.equal(status.available, false);
      // Socket buffers on both sides hold a few MiB; the whole desc is 57 MiB.
      assert.equal(finished, false, "the gateway read the whole flood");
      assert.ok(sent < 24 * 1_048_576, `the origin sent ${sent} bytes`);
      assert.ok(grown < 100, `peak RSS grew by ${grown.toFixed(0)} MiB`);
    } finally {
      await gw.stop();
      origin.closeAllConnections();
      origin.close();
    }
  });
});
