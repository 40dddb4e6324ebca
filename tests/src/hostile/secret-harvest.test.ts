import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FullGateway, startFull } from "../full/full-fixture.js";
import { requestJson } from "../harness/http-client.js";
import { type Origin, type OriginHit, startOrigin } from "../harness/origin-server.js";

// Issue 30 item 2: a writer who cannot read a channel's secrets (admin reads blank them) tries
// to harvest them by moving the channel's source to an origin it runs, keeping the stored
// values with blanks (PUT) or by letting an M3U entry update the channel (the import keeps what
// an entry does not state). The harvest origin is a second loopback origin (another port of
// 127.0.0.1, in security.allowed_hosts) that records the headers it receives.

const KID = "00112233445566778899aabbccddeeff";
const KEY = "ffeeddccbbaa99887766554433221100";
const SECRET_HEADERS = { Authorization: "Bearer canary-auth", "X-Api-Key": "canary-key" };

const secretChannel = (id: string, home: Origin, extra: Record<string, unknown> = {}) => ({
  id,
  title: id,
  ingress: "hls",
  source_url: `${home.url}/${id}/index.m3u8`,
  headers: { ...SECRET_HEADERS, "X-Plain": "visible" },
  keys: { [KID]: KEY },
  ...extra,
});

describe("secret harvest: stored secrets never follow a channel to another origin", () => {
  let home: Origin;
  let harvest: Origin;
  let full: FullGateway;

  before(async () => {
    home = await startOrigin();
    harvest = await startOrigin();
    full = await startFull({
      security: { allowed_hosts: ["127.0.0.1"] },
      channels: [
        secretChannel("put-move", home),
        secretChannel("put-stay", home),
        secretChannel("m3u.move", home, { epg_id: "m3u.move" }),
      ],
    });
  });
  after(async () => {
    await full?.gw.stop();
    await home?.close();
    await harvest?.close();
  });

  /** Plays the channel once, so the gateway fetches its source; returns what `origin` got. */
  const play = async (id: string, origin: Origin, path: string): Promise<OriginHit> => {
    const before = origin.count(path);
    const res = await fetch(`${full.base}/v1/play/${id}/index.m3u8`, {
      headers: { authorization: `Bearer ${full.admin}` },
    });
    await res.arrayBuffer();
    assert.equal(origin.count(path), before + 1, `${id}: the source was not fetched`);
    return origin.hits.filter((h) => h.path === path).at(-1)!;
  };
  const adminRead = async (id: string) => {
    const r = await requestJson(`${full.base}/v1/admin/channels/${id}`, { token: full.admin });
    assert.equal(r.status, 200, r.text);
    return r.body.channel;
  };
  /** The channel moved to `harvest`: its secrets are gone from the store and never sent there. */
  const assertSecretsDropped = async (id: string, path: string) => {
    const after = await adminRead(id);
    assert.deepEqual(after.headers, { "X-Plain": "visible" });
    assert.deepEqual(after.keys, {});
    const hit = await play(id, harvest, path);
    assert.equal(hit.headers.authorization, undefined, JSON.stringify(hit.headers));
    assert.equal(hit.headers["x-api-key"], undefined, JSON.stringify(hit.headers));
    assert.equal(hit.headers["x-plain"], "visible");
  };
  /** A write body as a console would send it: what it read, blanks included. */
  const writeBack = (read: any, source_url: string) => ({
    id: read.id,
    title: read.title,
    ingress: read.ingress,
    source_url,
    headers: read.headers,
    keys: read.keys,
  });

  it("PUT to another origin with blanked secrets: dropped, listed in dropped_secrets, never sent", async () => {
    const read = await adminRead("put-move");
    assert.deepEqual(read.headers, { Authorization: "", "X-Api-Key": "", "X-Plain": "visible" });
    assert.deepEqual(read.keys, { [KID]: "" });
    const r = await requestJson(`${full.base}/v1/admin/channels/put-move`, {
      method: "PUT",
      token: full.admin,
      body: writeBack(read, `${harvest.url}/put/index.m3u8`),
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      ok: true,
      id: "put-move",
      egress_profile_id: null,
      dropped_secrets: ["headers.Authorization", "headers.X-Api-Key", `keys.${KID}`],
    });
    await assertSecretsDropped("put-move", "/put/index.m3u8");
  });

  it("PUT on the same origin (another path) keeps blanked secrets and answers the spec's shape", async () => {
    const read = await adminRead("put-stay");
    const r = await requestJson(`${full.base}/v1/admin/channels/put-stay`, {
      method: "PUT",
      token: full.admin,
      body: writeBack(read, `${home.url}/put-stay/moved.m3u8`),
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { ok: true, id: "put-stay", egress_profile_id: null });
    assert.deepEqual((await adminRead("put-stay")).keys, { [KID]: "" });
    const hit = await play("put-stay", home, "/put-stay/moved.m3u8");
    assert.equal(hit.headers.authorization, SECRET_HEADERS.Authorization);
    assert.equal(hit.headers["x-api-key"], SECRET_HEADERS["X-Api-Key"]);
  });

  it("M3U update to another origin: the preview flags it, apply drops the secrets, never sent", async () => {
    const content = `#EXTM3U\n#EXTINF:-1 tvg-id="m3u.move",M3U Move\n${harvest.url}/m3u/index.m3u8?x=1\n`;
    const preview = await requestJson(`${full.base}/v1/admin/import/m3u`, {
      token: full.admin,
      body: { content },
    });
    assert.equal(preview.status, 200, preview.text);
    const flagged = {
      line: 3,
      action: "update",
      id: "m3u.move",
      title: "M3U Move",
      url: `${harvest.url}/m3u/index.m3u8`,
      ingress: "hls",
      revision: 1,
      dropped_secrets: ["headers.Authorization", "headers.X-Api-Key", `keys.${KID}`],
    };
    assert.deepEqual(preview.body.entries, [flagged]);
    const applied = await requestJson(`${full.base}/v1/admin/import/m3u`, {
      token: full.admin,
      body: { content, apply: true, revisions: preview.body.revisions },
    });
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.updated, 1);
    assert.deepEqual(applied.body.entries, [flagged]);
    await assertSecretsDropped("m3u.move", "/m3u/index.m3u8");
  });

  it("M3U update on the same origin keeps the secrets and flags nothing", async () => {
    const content = `#EXTM3U\n#EXTINF:-1 tvg-id="put-stay",Stay\n${home.url}/put-stay/again.m3u8\n`;
    const preview = await requestJson(`${full.base}/v1/admin/import/m3u`, {
      token: full.admin,
      body: { content },
    });
    assert.equal(preview.status, 200, preview.text);
    const [entry] = preview.body.entries;
    assert.equal(entry.action, "update", preview.text);
    assert.equal(entry.id, "put-stay");
    assert.ok(!("dropped_secrets" in entry), preview.text);
    const applied = await requestJson(`${full.base}/v1/admin/import/m3u`, {
      token: full.admin,
      body: { content, apply: true, revisions: preview.body.revisions },
    });
    assert.equal(applied.status, 200, applied.text);
    const hit = await play("put-stay", home, "/put-stay/again.m3u8");
    assert.equal(hit.headers.authorization, SECRET_HEADERS.Authorization);
  });
});
