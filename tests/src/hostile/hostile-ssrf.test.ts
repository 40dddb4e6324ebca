import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Build, type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { HostileGroup } from "./hostile-checks.js";

// Issue 14 item 2: SSRF through every door of the gateway, with every spelling of a loopback
// address that is NOT in security.allowed_hosts (only 127.0.0.1 is). Two traps listen on the
// refused addresses themselves (127.0.0.2 and ::1): had the guard let a spelling through, the
// trap would see the request. Loopback only: every spelling below resolves to 127.0.0.2 or ::1.

/** Every spelling of 127.0.0.2:`v4` and [::1]:`v6` the WHATWG parser or a resolver accepts. */
function spellings(v4: number, v6: number): string[] {
  const four = [
    "127.0.0.2",
    "2130706434",
    "0x7f000002",
    "0X7F000002",
    "017700000002",
    "0177.0.0.2",
    "0177.0000.0000.0002",
    "0x7f.0.0.2",
    "0x7f.0x0.0x0.0x2",
    "127.2",
    "127.0.2",
    "127.000.000.002",
    "127.0.0.2.",
    "１２７.０.０.２",
    "127。0。0。2",
    "[::ffff:127.0.0.2]",
    "[::ffff:7f00:2]",
    "[0:0:0:0:0:ffff:7f00:2]",
    "[0000:0000:0000:0000:0000:ffff:127.0.0.2]",
  ].map((h) => `http://${h}:${v4}`);
  const six = ["[::1]", "[0:0:0:0:0:0:0:1]", "[0000::0001]", "[::0:1]", "localhost"].map(
    (h) => `http://${h}:${v6}`,
  );
  return [...four, ...six, `http://127.0.0.1:${v4}@127.0.0.2:${v4}`];
}

interface Traps {
  v4: Origin;
  v6: Origin;
  /** Requests either trap received. */
  hits(): number;
}

async function startTraps(): Promise<Traps> {
  const v4 = await startOrigin({ host: "127.0.0.2" });
  const v6 = await startOrigin({ host: "::1" });
  return { v4, v6, hits: () => v4.hits.length + v6.hits.length };
}

/** The allow-listed origin: playlists naming refused hosts, and redirects to them. */
async function startBait(targets: () => string[]): Promise<Origin> {
  return startOrigin({
    routes: (req, res) => {
      const url = req.url ?? "/";
      const redirect = /^\/redirect\/(\d+)/.exec(url);
      if (redirect !== null) {
        // A header value is ASCII: the full-width spelling travels percent-encoded.
        const to = `${targets()[Number(redirect[1])]}/trap/index.m3u8`.replace(
          /[^\x20-\x7e]/g,
          (c) => encodeURIComponent(c),
        );
        res.writeHead(302, { location: to });
        res.end();
        return true;
      }
      if (url.startsWith("/evil.m3u8")) {
        const lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2"];
        targets().forEach((t, i) => {
          if (i === 0) lines.push(`#EXT-X-KEY:METHOD=AES-128,URI="${t}/trap/key.bin"`);
          if (i === 1) lines.push(`#EXT-X-MAP:URI="${t}/trap/init.mp4"`);
          lines.push("#EXTINF:2,", `${t}/trap/seg${i}.ts`);
        });
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end(`${lines.join("\n")}\n`);
        return true;
      }
      if (url.startsWith("/master.m3u8")) {
        const lines = ["#EXTM3U"];
        for (const t of targets())
          lines.push("#EXT-X-STREAM-INF:BANDWIDTH=1000", `${t}/trap/variant.m3u8`);
        res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
        res.end(`${lines.join("\n")}\n`);
        return true;
      }
      return false;
    },
  });
}

/** Absolute or gateway-relative URLs of a rewritten playlist (URI attributes included). */
function playlistUrls(base: string, text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "") continue;
    if (t.startsWith("#")) {
      const m = /URI="([^"]+)"/.exec(t);
      if (m !== null) out.push(new URL(m[1]!, base).href);
    } else out.push(new URL(t, base).href);
  }
  return out;
}

for (const build of ["lite", "full"] as Build[]) {
  describe(`hostile input, ${build}: SSRF through every door, every loopback spelling`, () => {
    let traps: Traps;
    let bait: Origin;
    let gw: GatewayProcess;
    let group: HostileGroup;
    let admin: string;
    let targets: string[] = [];

    before(async () => {
      traps = await startTraps();
      targets = spellings(traps.v4.port, traps.v6.port);
      bait = await startBait(() => targets);
      const ch = (id: string, source_url: string) => ({
        id,
        title: id,
        ingress: "hls",
        source_url,
      });
      gw = await startGateway(build, {
        auth: authSection([], { login_rate_per_min: 100_000 }),
        security: { allowed_hosts: ["127.0.0.1"] },
        upstreams: targets.map((t, i) => ({ id: `up${i}`, base_url: `${t}/` })),
        channels: [
          ch("evil", `${bait.url}/evil.m3u8`),
          ch("master", `${bait.url}/master.m3u8`),
          ...targets.map((t, i) => ch(`src${i}`, `${t}/trap/index.m3u8`)),
          ...targets.map((_, i) => ch(`redir${i}`, `${bait.url}/redirect/${i}`)),
          ...targets.map((_, i) => ({
            id: `up${i}`,
            title: `up${i}`,
            ingress: "hls",
            upstream: `up${i}`,
            path: "trap/index.m3u8",
          })),
        ],
        ...(build === "full" ? { guide: { logo_repositories: [] } } : {}),
      });
      group = new HostileGroup(gw);
      admin = await login(gw.url, "admin", ADMIN_PASSWORD);
    });
    after(async () => {
      await gw.stop();
      await traps.v4.close();
      await traps.v6.close();
      await bait.close();
    });

    const play = async (label: string, url: string) => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${admin}` } });
      const a = await group.record(label, res);
      assert.ok(a.status >= 400, `${label}: ${a.status} ${a.text.slice(0, 200)}`);
      return a;
    };

    it("channel sources, upstream bases and redirects to a refused spelling are never dialled", async () => {
      for (let i = 0; i < targets.length; i += 1) {
        for (const id of [`src${i}`, `up${i}`, `redir${i}`])
          await play(`${id} ${targets[i]}`, `${gw.url}/v1/play/${id}/index.m3u8`);
      }
      assert.equal(traps.hits(), 0, JSON.stringify([...traps.v4.hits, ...traps.v6.hits]));
      assert.equal(
        bait.count("/redirect/"),
        targets.length,
        "each redirect was followed to its check",
      );
      await group.check();
    });

    it("playlist-borne URIs (segments, key, map, variants) to a refused spelling are refused", async () => {
      let followed = 0;
      for (const id of ["evil", "master"]) {
        const index = await fetch(`${gw.url}/v1/play/${id}/index.m3u8`, {
          headers: { authorization: `Bearer ${admin}` },
        });
        const text = await index.text();
        assert.equal(index.status, 200, text);
        for (const t of targets) assert.ok(!text.includes(`${t}/trap`), `${t} left unrewritten`);
        const urls = playlistUrls(`${gw.url}/v1/play/${id}/`, text);
        assert.ok(urls.length >= targets.length, text);
        for (const u of urls) {
          assert.ok(u.startsWith(gw.url), `${u} does not point at the gateway`);
          const a = await play(`${id} ${u}`, u);
          assert.equal(a.status, 403, `${a.label}: ${a.text}`);
          followed += 1;
        }
      }
      assert.ok(followed >= targets.length * 2 + 2);
      assert.equal(traps.hits(), 0, JSON.stringify([...traps.v4.hits, ...traps.v6.hits]));
      await group.check();
    });

    if (build === "full") {
      it("admin doors: channel writes, probes, source probes, the egress test, guide sources, logos", async () => {
        const post = async (label: string, path: string, body?: unknown) => {
          const r = await requestJson(`${gw.url}${path}`, {
            method: "POST",
            token: admin,
            ...(body === undefined ? {} : { body }),
          });
          group.add({
            label,
            status: r.status,
            contentType: r.headers.get("content-type") ?? "",
            text: r.text,
          });
          return r;
        };
        for (let i = 0; i < targets.length; i += 1) {
          const t = targets[i]!;
          // Egress connection test: 403 `forbidden` (spec "Egress": target safety has its own
          // status, issue 30 item 4), or 400 for a URL with credentials; never dialled.
          const e = await post(`egress test ${t}`, "/v1/admin/egress/test", {
            target: "custom",
            url: `${t}/trap/x`,
          });
          const refusedAs = t.includes("@") ? [400, "invalid_request"] : [403, "forbidden"];
          assert.deepEqual([e.status, e.body?.error?.code], refusedAs, `${t}: ${e.text}`);
          const viaRedirect = await post(`egress test redirect ${t}`, "/v1/admin/egress/test", {
            target: "custom",
            url: `${bait.url}/redirect/${i}`,
          });
          assert.equal(viaRedirect.status, 403, viaRedirect.text);
          assert.equal(viaRedirect.body.error.code, "forbidden", viaRedirect.text);
          // Probes of a saved channel, and of an unsaved source.
          for (const id of [`src${i}`, `redir${i}`, `up${i}`]) {
            const p = await post(`probe ${id}`, `/v1/admin/channels/${id}/probe`);
            assert.ok(p.status === 200 ? p.body.ok === false : p.status >= 400, p.text);
          }
          const sp = await post(`source probe ${t}`, "/v1/admin/source-probes", {
            id: `sp${i}`,
            title: "sp",
            ingress: "hls",
            source_url: `${t}/trap/index.m3u8`,
          });
          assert.ok(sp.status === 200 ? sp.body.ok === false : sp.status >= 400, sp.text);
          // A channel written with the spelling as source and logo.
          const w = await post(`channel write ${t}`, "/v1/admin/channels", {
            id: `w${i}`,
            title: `w${i}`,
            ingress: "hls",
            source_url: `${t}/trap/index.m3u8`,
            logo_url: `${t}/trap/logo.png`,
          });
          if (w.status === 201) {
            await play(`written ${t}`, `${gw.url}/v1/play/w${i}/index.m3u8`);
            const logo = await group.record(`logo ${t}`, await fetch(`${gw.url}/v1/logo/w${i}`));
            assert.ok([404, 502].includes(logo.status), `${logo.label}: ${logo.status}`);
          } else assert.equal(w.status, 400, w.text);
          // A guide source at the spelling.
          const g = await post(`guide source ${t}`, "/v1/admin/epg/sources", {
            id: `g${i}`,
            url: `${t}/trap/guide.xml`,
          });
          assert.ok([201, 400].includes(g.status), g.text);
        }
        const refresh = await post("guide refresh", "/v1/admin/epg/refresh");
        assert.equal(refresh.status, 200, refresh.text);
        assert.equal(refresh.body.ok, false, refresh.text);
        assert.equal(traps.hits(), 0, JSON.stringify([...traps.v4.hits, ...traps.v6.hits]));
        await group.check();
      });
    }
  });
}
