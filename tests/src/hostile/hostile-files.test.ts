import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import type { GatewayProcess } from "../harness/gateway-process.js";
import { startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { type Origin, startOrigin } from "../harness/origin-server.js";
import { ADMIN_PASSWORD, authSection } from "../harness/users.js";
import { HostileGroup } from "./hostile-checks.js";

// Issue 14 item 2: M3U, XMLTV, MPD and HLS bombs and malformed files, and regex rules written
// to backtrack. Each is answered (a preview, a failed refresh, a refused probe, a 4xx or 502)
// within the client's 20 s timeout; nothing answers 500 and the process stays healthy.
const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
  { length: 9 },
  (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
).join("")}]>`;

/** Path → [content type, body] served by the bait origin. */
const FILES: Record<string, [string, string | Buffer]> = {
  // XMLTV
  "/g/laughs.xml": [
    "application/xml",
    `${LAUGHS}<tv><channel id="a"><display-name>&lol9;</display-name></channel></tv>`,
  ],
  "/g/xxe.xml": [
    "application/xml",
    '<?xml version="1.0"?><!DOCTYPE tv [<!ENTITY x SYSTEM "file:///etc/passwd">]><tv><channel id="a"><display-name>&x;</display-name></channel></tv>',
  ],
  "/g/deep.xml": ["application/xml", `<tv>${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}</tv>`],
  "/g/attr.xml": ["application/xml", `<tv><channel id="${"i".repeat(2_000_000)}"/></tv>`],
  "/g/unclosed.xml": ["application/xml", '<tv><channel id="a"><display-name>x'],
  "/g/binary.xml": [
    "application/xml",
    Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) & 0xff)),
  ],
  "/g/truncated.xml.gz": [
    "application/gzip",
    gzipSync(Buffer.from("<tv>".padEnd(100_000, " "))).subarray(0, 200),
  ],
  "/g/gzip-bomb.xml.gz": ["application/gzip", gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20))],
  "/g/programmes.xml": [
    "application/xml",
    `<tv><channel id="a"><display-name>A</display-name></channel>${'<programme start="garbage" stop="-1" channel="a"><title>x</title></programme>'.repeat(20_000)}</tv>`,
  ],
  // MPD
  "/d/laughs.mpd": [
    "application/dash+xml",
    `${LAUGHS}<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static"><Period id="&lol9;"/></MPD>`,
  ],
  "/d/deep.mpd": [
    "application/dash+xml",
    `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">${"<Period>".repeat(50_000)}${"</Period>".repeat(50_000)}</MPD>`,
  ],
  "/d/timeline.mpd": [
    "application/dash+xml",
    '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="1970-01-01T00:00:00Z" minimumUpdatePeriod="PT2S"><Period id="p" start="PT0S"><AdaptationSet mimeType="video/mp4" contentType="video"><SegmentTemplate timescale="1" media="$Time$.m4s" initialization="init.mp4"><SegmentTimeline><S t="0" d="1" r="999999999999"/><S d="-5" r="-3"/></SegmentTimeline></SegmentTemplate><Representation id="v" bandwidth="1" width="99999999" height="99999999" codecs="avc1.640028"/></AdaptationSet></Period></MPD>',
  ],
  "/d/negative.mpd": [
    "application/dash+xml",
    '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT-5S"><Period duration="P99999999Y"><AdaptationSet><SegmentTemplate duration="0" timescale="0" startNumber="-1" media="$Number%0999999d$.m4s"/><Representation id="v" bandwidth="-1"/></AdaptationSet></Period></MPD>',
  ],
  "/d/notxml.mpd": ["application/dash+xml", '{"this":"is json"}'],
  // HLS
  "/h/huge-seq.m3u8": [
    "application/vnd.apple.mpegurl",
    "#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n#EXT-X-MEDIA-SEQUENCE:100000000000000000000000000000\n#EXTINF:1e308,\nseg.ts\n",
  ],
  "/h/long-line.m3u8": [
    "application/vnd.apple.mpegurl",
    `#EXTM3U\n#EXTINF:2,${"t".repeat(1_000_000)}\n${"s".repeat(100_000)}.ts\n`,
  ],
  "/h/attrs.m3u8": [
    "application/vnd.apple.mpegurl",
    `#EXTM3U\n#EXT-X-KEY:${'METHOD=AES-128,URI="'.repeat(20_000)}\n#EXT-X-MAP:URI=${",".repeat(200_000)}\n#EXTINF:2,\nseg.ts\n`,
  ],
  "/h/many.m3u8": [
    "application/vnd.apple.mpegurl",
    `#EXTM3U\n#EXT-X-TARGETDURATION:2\n${"#EXTINF:2,\ns.ts\n".repeat(200_000)}`,
  ],
  "/h/binary.m3u8": [
    "application/vnd.apple.mpegurl",
    Buffer.concat([
      Buffer.from("#EXTM3U\n"),
      Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff)),
    ]),
  ],
  "/h/variant-loop.m3u8": [
    "application/vnd.apple.mpegurl",
    `#EXTM3U\n${"#EXT-X-STREAM-INF:BANDWIDTH=1\nvariant-loop.m3u8\n".repeat(10_000)}`,
  ],
};

/** M3U import bodies: label → content. */
const M3U_BOMBS: [string, string][] = [
  [
    "30000 entries",
    `#EXTM3U\n${'#EXTINF:-1 tvg-id="x",X\nhttp://127.0.0.1:9/x.m3u8\n'.repeat(30_000)}`.slice(
      0,
      1_000_000,
    ),
  ],
  ["unterminated quotes", `#EXTM3U\n#EXTINF:-1 ${'a="'.repeat(100_000)},X\nhttp://127.0.0.1:9/x\n`],
  ["attribute soup", `#EXTM3U\n#EXTINF:-1 ${"tvg-name=".repeat(50_000)},X\nhttp://127.0.0.1:9/x\n`],
  ["one long line", `#EXTM3U\n#EXTINF:-1,${"n".repeat(900_000)}\nhttp://127.0.0.1:9/x\n`],
  [
    "NUL and control bytes",
    '#EXTM3U\n#EXTINF:-1 tvg-id="\u0000\u0001",\u0007X\nhttp://127.0.0.1:9/\u0000x\n',
  ],
  [
    "URLs of every scheme",
    "#EXTM3U\n#EXTINF:-1,A\nfile:///etc/passwd\n#EXTINF:-1,B\njavascript:alert(1)\n#EXTINF:-1,C\ngopher://127.0.0.2:70/x\n#EXTINF:-1,D\n//127.0.0.2/x\n",
  ],
  ["no header", "http://127.0.0.1:9/x\n".repeat(1000)],
  ["CR only lines", "#EXTM3U\r#EXTINF:-1,A\rhttp://127.0.0.1:9/a\r"],
];

describe("hostile input, full: file bombs, malformed files and backtracking regexes", () => {
  let bait: Origin;
  let gw: GatewayProcess;
  let group: HostileGroup;
  let admin: string;

  before(async () => {
    bait = await startOrigin({
      routes: (req, res) => {
        const f = FILES[(req.url ?? "").split("?")[0]!];
        if (f === undefined) return false;
        res.writeHead(200, { "content-type": f[0] });
        res.end(f[1]);
        return true;
      },
    });
    const hls = Object.keys(FILES)
      .filter((p) => p.startsWith("/h/"))
      .map((p, i) => ({ id: `h${i}`, title: p, ingress: "hls", source_url: `${bait.url}${p}` }));
    gw = await startGateway("full", {
      auth: authSection([], { login_rate_per_min: 100_000 }),
      security: {
        allowed_hosts: ["127.0.0.1"],
        max_playlist_bytes: 2_000_000,
        max_body_bytes: 1_048_576,
      },
      guide: { logo_repositories: [] },
      channels: hls,
    });
    group = new HostileGroup(gw);
    admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  });
  after(async () => {
    await gw.stop();
    await bait.close();
  });

  const call = async (
    label: string,
    path: string,
    init: { method?: string; body?: unknown } = {},
  ) => {
    const r = await requestJson(`${gw.url}${path}`, { token: admin, ...init });
    group.add({
      label,
      status: r.status,
      contentType: r.headers.get("content-type") ?? "",
      text: r.text,
    });
    return r;
  };

  it("XMLTV bombs and malformed guides fail their refresh; the guide stays well-formed", async () => {
    const guides = Object.keys(FILES).filter((p) => p.startsWith("/g/"));
    for (const [i, p] of guides.entries()) {
      const r = await call(`source ${p}`, "/v1/admin/epg/sources", {
        body: { id: `g${i}`, url: `${bait.url}${p}` },
      });
      assert.equal(r.status, 201, r.text);
    }
    const refresh = await call("refresh", "/v1/admin/epg/refresh", { method: "POST" });
    assert.equal(refresh.status, 200, refresh.text);
    assert.equal(refresh.body.ok, false, refresh.text);
    const epg = await fetch(`${gw.url}/v1/epg.xml`);
    const xml = await epg.text();
    assert.equal(epg.status, 200);
    assert.doesNotMatch(xml, /root:x:0:0|lollollol/);
    assert.ok(xml.length < 10_000_000, `epg.xml is ${xml.length} bytes`);
    await group.check();
  });

  it("MPD bombs and malformed manifests are refused by the probes", async () => {
    for (const p of Object.keys(FILES).filter((k) => k.startsWith("/d/"))) {
      const r = await call(`probe ${p}`, "/v1/admin/source-probes", {
        body: { id: "d", title: "d", ingress: "dash", source_url: `${bait.url}${p}` },
      });
      assert.ok(
        r.status === 200
          ? r.body.ok === false || r.body.inspection !== undefined
          : r.status < 500 || r.status === 502,
        r.text,
      );
    }
    await group.check();
  });

  it("HLS playlists built to hurt are answered, never with a 500", async () => {
    for (const [i, p] of Object.keys(FILES)
      .filter((k) => k.startsWith("/h/"))
      .entries()) {
      const res = await fetch(`${gw.url}/v1/play/h${i}/index.m3u8`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const a = await group.record(`play ${p}`, res);
      assert.ok(
        a.status === 200 || a.status === 502 || (a.status >= 400 && a.status < 500),
        `${a.label}: ${a.status}`,
      );
    }
    await group.check();
  });

  it("M3U import bombs are previewed or refused", async () => {
    for (const [label, content] of M3U_BOMBS) {
      const r = await call(`import ${label}`, "/v1/admin/import/m3u", {
        body: { content, apply: false },
      });
      assert.ok(
        r.status === 200 || r.status === 400 || r.status === 413,
        `${label}: ${r.status} ${r.text.slice(0, 200)}`,
      );
    }
    await group.check();
  });

  it("regex rules: nested quantifiers run in linear time, backtracking constructs are refused", async () => {
    const egress = await call("egress", "/v1/admin/egress");
    let revision = egress.body.revision as number;
    for (const pattern of ["(a+)+$", "(a|aa)+$", "(.*a){25}", "^(([a-z])+.)+[A-Z]([a-z])+$"]) {
      const r = await requestJson(`${gw.url}/v1/admin/egress/rules`, {
        token: admin,
        headers: { "if-match": `"${revision}"` },
        body: { kind: "url_regex", pattern, proxy: "direct" },
      });
      group.add({
        label: `rule ${pattern}`,
        status: r.status,
        contentType: "application/json",
        text: r.text,
      });
      assert.ok([200, 201].includes(r.status), r.text);
      revision = Number((r.headers.get("etag") ?? "").replace(/\D/g, ""));
    }
    for (const pattern of ["(a)\\1", "(?=a)a", "(?<!a)b", "a{99999}", "x".repeat(600)]) {
      const r = await requestJson(`${gw.url}/v1/admin/egress/rules`, {
        token: admin,
        headers: { "if-match": `"${revision}"` },
        body: { kind: "host_regex", pattern, proxy: "direct" },
      });
      group.add({
        label: `rule ${pattern.slice(0, 20)}`,
        status: r.status,
        contentType: "application/json",
        text: r.text,
      });
      assert.equal(r.status, 400, `${pattern.slice(0, 20)}: ${r.text}`);
    }
    // Every rule is tried on these URLs; a backtracking engine would not return.
    for (const tail of ["a".repeat(8000), `${"a".repeat(8000)}!`, `${"ab".repeat(4000)}A`]) {
      const r = await call("egress test against the rules", "/v1/admin/egress/test", {
        body: { target: "custom", url: `${bait.url}/${tail}` },
      });
      assert.equal(r.status, 200, r.text);
      const h = await fetch(`${gw.url}/healthz`);
      assert.equal(h.status, 200);
    }
    await group.check();
  });
});
