import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loopbackEgress, runtimeOptions, testConfig } from "@svc/test-kits/playback-fixture";
import { createPlaybackRuntime, type PlaybackRuntime } from "../playback-runtime.js";
import { renderedPlaylist } from "./rendered-playlists.js";

// Refresh-ahead (issue 13 item 1): when a cached playlist expires, the request that finds
// it so starts the next fetch, and until that fetch answers every request is served the
// previous playlist — for at most one more of its lifetimes — instead of all of them
// queueing behind the refresh (at 200 connections that queue was the whole p99).
describe("playlist source: refresh-ahead", () => {
  let sequence = 1;
  /** Answers parked while the origin is told to hold. */
  let held: ServerResponse[] = [];
  let holding = false;
  const origin = createServer((_req, res) => {
    if (holding) held.push(res);
    else answer(res);
  });
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
    // TARGETDURATION 1: cached for half a second.
    res.end(
      `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:${sequence}\n#EXTINF:1,\ns.ts\n`,
    );
  };
  const release = () => {
    holding = false;
    for (const res of held) answer(res);
    held = [];
  };
  const egress = loopbackEgress(5_000);
  let rt: PlaybackRuntime;
  let url: string;

  before(async () => {
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/live.m3u8`;
    const config = testConfig([{ id: "ch", title: "ch", ingress: "hls", source_url: url }]);
    rt = createPlaybackRuntime(
      runtimeOptions(config, { egress, build: "lite", signingKey: "refresh-ahead-test" }),
    );
  });
  after(async () => {
    release();
    await egress.close();
    origin.close();
  });

  const seqOf = (o: Awaited<ReturnType<PlaybackRuntime["playlists"]["get"]>>) => {
    assert.equal(o.kind, "playlist");
    return o.kind === "playlist" ? o.compiled : undefined;
  };
  /** Resolves to the outcome, or "waiting" when it takes longer than `ms`. */
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, sleep(ms).then(() => "waiting" as const)]);

  it("serves the previous playlist while the refresh is in flight, then the new one", async () => {
    const channel = rt.options.catalog.get("ch")!;
    const first = seqOf(await rt.playlists.get(channel, url, false));
    assert.equal(rt.playlists.peek(channel, url)?.compiled, first);
    await sleep(600); // expired (half a target duration)
    assert.equal(rt.playlists.peek(channel, url), undefined, "expired and no refresh yet");
    holding = true;
    sequence = 2;
    const fetchesBefore = rt.playlists.fetches;
    // The request that finds it expired starts the refresh and is answered at once.
    const during = await within(rt.playlists.get(channel, url, false), 300);
    assert.notEqual(during, "waiting");
    assert.equal(seqOf(during as never), first);
    assert.equal(rt.playlists.peek(channel, url)?.compiled, first);
    assert.equal(rt.playlists.fetches, fetchesBefore + 1, "one refresh, shared");
    await within(rt.playlists.get(channel, url, false), 50);
    assert.equal(rt.playlists.fetches, fetchesBefore + 1);
    release();
    await sleep(100);
    const next = seqOf(await rt.playlists.get(channel, url, false));
    assert.notEqual(next, first);
    assert.equal(rt.playlists.peek(channel, url)?.compiled, next);
  });

  it("stops serving the previous playlist one lifetime after it expired", async () => {
    const channel = rt.options.catalog.get("ch")!;
    await rt.playlists.get(channel, url, false);
    await sleep(600);
    holding = true;
    sequence = 3;
    assert.notEqual(await within(rt.playlists.get(channel, url, false), 300), "waiting");
    await sleep(600); // past one more lifetime with the refresh still held
    assert.equal(rt.playlists.peek(channel, url), undefined);
    const late = rt.playlists.get(channel, url, false);
    assert.equal(await within(late, 200), "waiting", "an old playlist is not served for long");
    release();
    const fresh = await late;
    assert.equal(fresh.kind, "playlist");
    assert.match(fresh.kind === "playlist" ? String(fresh.compiled.lastMsn) : "", /^3$/);
  });
  it("moves the LL-HLS live edge with every refresh, even one no getLive call awaited", async () => {
    const channel = rt.options.catalog.get("ch")!;
    release();
    await sleep(600);
    // A getLive call records the live edge of the playlist it reads (sequence 3 here).
    assert.equal((await rt.playlists.getLive(channel, url, "")).kind, "playlist");
    await sleep(600);
    sequence = 20;
    await rt.playlists.get(channel, url, false); // answered ahead with the previous playlist
    await sleep(100); // the refresh has landed; nothing read it through getLive
    assert.equal(rt.playlists.peek(channel, url)?.compiled.lastMsn, 20);
    // 22 is two past the new edge: allowed (RFC 8216bis 6.2.5.2); with the edge left at the
    // previous playlist's it would be refused as more than two ahead.
    const ahead = await rt.playlists.getLive(channel, url, "_HLS_msn=22");
    assert.notEqual(ahead.kind, "invalid");
  });
  it("keeps the compiled playlist and its rendered bytes when a refresh brings the same text", async () => {
    const channel = rt.options.catalog.get("ch")!;
    release();
    sequence = 30;
    await sleep(600);
    await rt.playlists.get(channel, url, false);
    await sleep(100);
    const first = rt.playlists.peek(channel, url);
    assert.equal(first?.compiled.lastMsn, 30);
    const bytes = renderedPlaylist(first!.compiled, "http://127.0.0.1/v1/play/ch/", "token=a");
    const fetchesBefore = rt.playlists.fetches;
    await sleep(600); // expired; the origin answers the same text
    await rt.playlists.get(channel, url, false);
    await sleep(100);
    assert.equal(rt.playlists.fetches, fetchesBefore + 1, "refreshed from the origin");
    const same = rt.playlists.peek(channel, url);
    assert.equal(same, first, "the same outcome, not a new compile");
    assert.equal(
      renderedPlaylist(same!.compiled, "http://127.0.0.1/v1/play/ch/", "token=a"),
      bytes,
      "the viewer's rendered bytes are reused",
    );
    sequence = 31;
    await sleep(600);
    await rt.playlists.get(channel, url, false);
    await sleep(100);
    const changed = rt.playlists.peek(channel, url);
    assert.notEqual(changed, first);
    assert.equal(changed?.compiled.lastMsn, 31);
  });
});
