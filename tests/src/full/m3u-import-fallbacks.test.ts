import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { requestJson } from "../harness/http-client.js";
import { assertError, type FullGateway, startFull } from "./full-fixture.js";

// Never contacted: the import only plans and writes channels.
const A = "http://127.0.0.1:9";
const B = "http://127.0.0.2:9";

/** Line numbers below are the playlist's: the URL line of each entry. */
const PLAYLIST = [
  "#EXTM3U", // 1
  '#EXTINF:-1 tvg-id="fb.news" group-title="News",FB News', // 2
  `${A}/news/main.m3u8`, // 3
  "#EXTINF:-1,Plain One", // 4
  `${A}/plain/one.m3u8`, // 5
  '#EXTINF:-1 tvg-id="fb.news",FB News backup', // 6
  "#EXTVLCOPT:http-user-agent=BackupAgent/1.0", // 7
  "#KODIPROP:inputstream.adaptive.stream_headers=Authorization=Bearer%20fb-token&X-Plain=p", // 8
  `${B}/news/backup.m3u8`, // 9
  "#EXTINF:-1,Plain One", // 10
  `${A}/plain/one-again.m3u8`, // 11
  '#EXTINF:-1 tvg-id="fb.news",FB News third', // 12
  `${A}/news/third.m3u8`, // 13
  '#EXTINF:-1 tvg-id="fb.news",FB News as TS', // 14
  `${A}/news/stream.ts`, // 15
  '#EXTINF:-1 tvg-id="fb.news",FB News repeated', // 16
  `${A}/news/third.m3u8`, // 17
  // One primary and nine more: eight fallbacks, the ninth reported.
  ...Array.from({ length: 10 }, (_, i) => [
    `#EXTINF:-1 tvg-id="fb.many",Many ${i}`, // 18 + 2i
    `${A}/many/${i}.m3u8`, // 19 + 2i
  ]).flat(),
  "",
].join("\n");

const manyLine = (i: number) => 19 + 2 * i;

function expectedEntries(channelAction: "create" | "skip") {
  const channel = (line: number, id: string, title: string, url: string, fallbacks?: number) => ({
    line,
    title,
    url,
    ingress: "hls",
    ...(fallbacks === undefined ? {} : { fallbacks }),
    action: channelAction,
    id,
    ...(channelAction === "skip" ? { reason: "unchanged" } : {}),
  });
  const fallback = (line: number, id: string, title: string, url: string, index: number) => ({
    line,
    title,
    url,
    ingress: "hls",
    action: "fallback",
    id,
    fallback_index: index,
  });
  return [
    channel(3, "fb.news", "FB News", `${A}/news/main.m3u8`, 2),
    channel(5, "Plain-One", "Plain One", `${A}/plain/one.m3u8`),
    fallback(9, "fb.news", "FB News backup", `${B}/news/backup.m3u8`, 0),
    channel(11, "Plain-One-2", "Plain One", `${A}/plain/one-again.m3u8`),
    fallback(13, "fb.news", "FB News third", `${A}/news/third.m3u8`, 1),
    {
      line: 15,
      title: "FB News as TS",
      url: `${A}/news/stream.ts`,
      ingress: "ts",
      action: "skip",
      id: "fb.news",
      reason: 'ingress ts differs from hls of tvg-id "fb.news" (line 3)',
    },
    {
      line: 17,
      title: "FB News repeated",
      url: `${A}/news/third.m3u8`,
      ingress: "hls",
      action: "skip",
      id: null,
      reason: "duplicate of line 13",
    },
    channel(manyLine(0), "fb.many", "Many 0", `${A}/many/0.m3u8`, 8),
    ...Array.from({ length: 8 }, (_, i) =>
      fallback(manyLine(i + 1), "fb.many", `Many ${i + 1}`, `${A}/many/${i + 1}.m3u8`, i),
    ),
    {
      line: manyLine(9),
      title: "Many 9",
      url: `${A}/many/9.m3u8`,
      ingress: "hls",
      action: "skip",
      id: "fb.many",
      reason: 'more than 8 fallback sources for tvg-id "fb.many" (line 19)',
    },
  ];
}

/** Extension: `duplicates: "fallbacks"` on the M3U import (docs/m3u.md). */
describe("M3U import: entries sharing a tvg-id as fallback sources", () => {
  let full: FullGateway;
  const api = (path: string, init: Parameters<typeof requestJson>[1] = {}) =>
    requestJson(`${full.base}${path}`, { token: full.admin, ...init });
  const importM3u = (body: unknown) => api("/v1/admin/import/m3u", { body });
  const channelOf = async (id: string) => (await api(`/v1/admin/channels/${id}`)).body.channel;

  before(async () => {
    full = await startFull();
  });
  after(async () => {
    await full?.gw.stop();
  });

  it("previews the grouping exactly and writes nothing", async () => {
    const r = await importM3u({ content: PLAYLIST, duplicates: "fallbacks" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.entries, expectedEntries("create"));
    assert.equal(r.body.count, 17);
    assert.equal(r.body.created, 4);
    assert.equal(r.body.updated, 0);
    assert.equal(r.body.skipped, 3);
    assert.equal(r.body.fallbacks, 10);
    assert.equal((await api("/v1/admin/channels/fb.news")).status, 404);
  });

  it("applies what the preview showed: one channel per tvg-id, its later entries in order", async () => {
    const r = await importM3u({ content: PLAYLIST, duplicates: "fallbacks", apply: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.preview, false);
    assert.deepEqual(r.body.entries, expectedEntries("create"));
    const news = await channelOf("fb.news");
    assert.equal(news.source_url, `${A}/news/main.m3u8`);
    assert.equal(news.title, "FB News");
    // Sensitive header values are blanked on read (stored, not shown).
    assert.deepEqual(news.fallback_sources, [
      {
        source_url: `${B}/news/backup.m3u8`,
        upstream: "",
        path: "",
        headers: { Authorization: "", "X-Plain": "p" },
        user_agent: "BackupAgent/1.0",
      },
      { source_url: `${A}/news/third.m3u8`, upstream: "", path: "", headers: {}, user_agent: "" },
    ]);
    const many = await channelOf("fb.many");
    assert.deepEqual(
      many.fallback_sources.map((f: { source_url: string }) => f.source_url),
      Array.from({ length: 8 }, (_, i) => `${A}/many/${i + 1}.m3u8`),
    );
    // Entries without a tvg-id are imported as without the option; no channel per duplicate.
    const ids = (await api("/v1/admin/channels")).body.channels.map((c: { id: string }) => c.id);
    assert.deepEqual(ids.filter((id: string) => !["news", "sport"].includes(id)).sort(), [
      "Plain-One",
      "Plain-One-2",
      "fb.many",
      "fb.news",
    ]);
    assert.equal((await channelOf("Plain-One")).fallback_sources, undefined);
  });

  it("re-applying the same playlist changes nothing", async () => {
    const revision = (await channelOf("fb.news")).revision;
    const preview = await importM3u({ content: PLAYLIST, duplicates: "fallbacks" });
    assert.deepEqual(preview.body.entries, expectedEntries("skip"));
    assert.equal(preview.body.created, 0);
    assert.equal(preview.body.updated, 0);
    assert.deepEqual(preview.body.revisions, {});
    const r = await importM3u({
      content: PLAYLIST,
      duplicates: "fallbacks",
      apply: true,
      revisions: preview.body.revisions,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.updated, 0);
    assert.equal((await channelOf("fb.news")).revision, revision);
  });

  it("replaces an existing channel's fallbacks; a secret stays only on its source's origin", async () => {
    const secret = { Authorization: "Bearer stored-fb" };
    const created = await api("/v1/admin/channels", {
      body: {
        id: "fb.owned",
        title: "Owned",
        ingress: "hls",
        source_url: `${A}/owned/main.m3u8`,
        epg_id: "fb.owned",
        fallback_sources: [
          { source_url: `${A}/owned/one.m3u8`, headers: secret },
          { source_url: `${A}/owned/two.m3u8`, headers: secret, user_agent: "Kept/1" },
          { source_url: `${A}/owned/three.m3u8` },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const content = [
      "#EXTM3U",
      '#EXTINF:-1 tvg-id="fb.owned",Owned',
      `${A}/owned/main.m3u8`,
      '#EXTINF:-1 tvg-id="fb.owned",Owned moved',
      `${B}/owned/one.m3u8`,
      '#EXTINF:-1 tvg-id="fb.owned",Owned same origin',
      `${A}/owned/two-b.m3u8`,
      "",
    ].join("\n");
    const preview = await importM3u({ content, duplicates: "fallbacks" });
    assert.equal(preview.status, 200, preview.text);
    const [entry] = preview.body.entries;
    assert.equal(entry.action, "update");
    assert.equal(entry.fallbacks, 2);
    assert.deepEqual(entry.dropped_secrets, ["fallback_sources[0].headers.Authorization"]);
    const r = await importM3u({
      content,
      duplicates: "fallbacks",
      apply: true,
      revisions: preview.body.revisions,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.entries[0].dropped_secrets, entry.dropped_secrets);
    const owned = await channelOf("fb.owned");
    assert.deepEqual(owned.fallback_sources, [
      { source_url: `${B}/owned/one.m3u8`, upstream: "", path: "", headers: {}, user_agent: "" },
      {
        source_url: `${A}/owned/two-b.m3u8`,
        upstream: "",
        path: "",
        headers: { Authorization: "" },
        user_agent: "Kept/1",
      },
    ]);
  });

  it("without the option, the same entries stay separate channels (the specification's import)", async () => {
    const content = [
      "#EXTM3U",
      '#EXTINF:-1 tvg-id="fb.sep",Separate',
      `${A}/sep/a.m3u8`,
      '#EXTINF:-1 tvg-id="fb.sep",Separate backup',
      `${A}/sep/b.m3u8`,
      "",
    ].join("\n");
    const r = await importM3u({ content, apply: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.fallbacks, undefined);
    assert.deepEqual(
      r.body.entries.map((e: { action: string; id: string }) => [e.action, e.id]),
      [
        ["create", "fb.sep"],
        ["create", "fb.sep-2"],
      ],
    );
    assert.equal((await channelOf("fb.sep")).fallback_sources, undefined);
  });

  it("refuses an unknown duplicates mode", async () => {
    const r = await importM3u({ content: PLAYLIST, duplicates: "merge" });
    assertError(r, 400, "invalid_request");
    assert.match(r.body.error.message, /duplicates/);
  });
});
