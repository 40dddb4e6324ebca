#!/usr/bin/env node
/**
 * The floor of any Node DASH consumer, for `cenc-channel-cpu.mjs --node-floor`: the least a
 * Node process must do to move a live DASH channel's bytes from the origin to disk, which is
 * what the ffmpeg reference (`-c copy -f hls`) does, and nothing of what the gateway adds
 * (no box parsing, no decryption, no HLS playlists, no parts, no viewer). Its CPU is a lower
 * bound for a Node packager of the same channel: if this alone is above a fraction of
 * ffmpeg's CPU, so is every Node packager (docs/performance.md "DASH packager").
 *
 *   node bench/dash-node-floor.mjs MPD_URL OUT_DIR
 *
 * What it does, as cheaply as Node allows: node:http with one keep-alive agent (no fetch, no
 * streams beyond the response); the MPD re-read every `minimumUpdatePeriod` (as a DASH client
 * must, to see a change) and read with regular expressions, not an XML parser; each
 * Representation's init segment once, then every media segment once, in order, requested
 * when it starts (the origin holds a segment being encoded until it ends, as the bench's
 * origin does for every consumer); each segment written to OUT_DIR, the one written
 * `WINDOW` segments earlier unlinked. SegmentTimeline and SegmentTemplate@duration MPDs with
 * `$RepresentationID$` and `$Number%05d$` templates (what `cenc-live-origin.mjs` serves).
 * Loopback only.
 */
import { unlink, writeFile } from "node:fs/promises";
import { Agent, get } from "node:http";
import { join } from "node:path";

const [mpdUrl, outDir] = process.argv.slice(2);
if (mpdUrl === undefined || outDir === undefined)
  throw new Error("usage: dash-node-floor.mjs MPD_URL OUT_DIR");
const WINDOW = 6;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** GET `url`: [status, body]. */
function fetchBytes(url) {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve([res.statusCode, Buffer.concat(chunks)]));
      res.on("error", reject);
    }).on("error", reject);
  });
}

const attr = (tag, name) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
const seconds = (iso) => {
  const m = /PT(?:([\d.]+)M)?(?:([\d.]+)S)?/.exec(iso ?? "");
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 0;
};

/** What the MPD says: its clock origin, refresh period, and per Representation its segments. */
function readMpd(text) {
  const reps = [];
  for (const m of text.matchAll(/<Representation ([^>]*)>([\s\S]*?)<\/Representation>/g)) {
    const template = /<SegmentTemplate ([^>]*)>/.exec(m[2])?.[1] ?? "";
    const timeline = [...m[2].matchAll(/<S ([^>]*)\/>/g)].map((s) => s[1]);
    reps.push({
      id: attr(m[1], "id"),
      timescale: Number(attr(template, "timescale") ?? 1),
      duration: Number(attr(template, "duration") ?? 0),
      startNumber: Number(attr(template, "startNumber") ?? 1),
      init: attr(template, "initialization"),
      media: attr(template, "media"),
      timeline: timeline.map((s) => ({ t: Number(attr(s, "t")), d: Number(attr(s, "d")) })),
    });
  }
  return {
    ast: Date.parse(attr(text, "availabilityStartTime") ?? ""),
    updateMs: Math.max(500, seconds(attr(text, "minimumUpdatePeriod")) * 1000),
    reps,
  };
}

const fill = (template, id, n) =>
  template
    .replace("$RepresentationID$", id)
    .replace(/\$Number%0(\d+)d\$/, (_, w) => String(n).padStart(Number(w), "0"));

let mpd = readMpd((await fetchBytes(mpdUrl))[1].toString("utf8"));
const base = mpdUrl.slice(0, mpdUrl.lastIndexOf("/") + 1);

/** Resolved by each MPD refresh: a SegmentTimeline follower waits on it for new entries. */
let refreshed = newWaiter();
function newWaiter() {
  let resolve;
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Until segment `n` of `rep` can be asked for: listed in the MPD (timeline), or started on
 * the MPD's clock (duration; the origin then holds it until it ends).
 */
async function available(index, n) {
  for (;;) {
    const rep = mpd.reps[index];
    if (rep.timeline.length > 0) {
      if (n <= rep.startNumber + rep.timeline.length - 1) return;
      await refreshed.promise;
    } else {
      const startMs = mpd.ast + ((n - rep.startNumber) * rep.duration * 1000) / rep.timescale;
      if (Date.now() >= startMs) return;
      await sleep(startMs - Date.now());
    }
  }
}

/** The first segment to read: the newest listed (timeline) or started (duration). */
function liveEdge(rep) {
  if (rep.timeline.length > 0) return rep.startNumber + rep.timeline.length - 1;
  const elapsed = (Date.now() - mpd.ast) / 1000;
  return rep.startNumber + Math.floor((elapsed * rep.timescale) / rep.duration);
}

/** One Representation: its init segment, then every segment from the live edge on. */
async function follow(index) {
  const first = mpd.reps[index];
  const [, init] = await fetchBytes(base + fill(first.init, first.id, 0));
  await writeFile(join(outDir, `init-${first.id}.mp4`), init);
  let next = liveEdge(first);
  for (;;) {
    await available(index, next);
    const rep = mpd.reps[index];
    const [status, body] = await fetchBytes(base + fill(rep.media, rep.id, next));
    if (status !== 200) {
      await sleep(200);
      continue;
    }
    await writeFile(join(outDir, `${rep.id}-${next}.m4s`), body);
    if (next - WINDOW > 0)
      await unlink(join(outDir, `${rep.id}-${next - WINDOW}.m4s`)).catch(() => {});
    next += 1;
  }
}

async function refresh() {
  for (;;) {
    await sleep(mpd.updateMs);
    const [status, body] = await fetchBytes(mpdUrl);
    if (status === 200) mpd = readMpd(body.toString("utf8"));
    const done = refreshed;
    refreshed = newWaiter();
    done.resolve();
  }
}

await Promise.all([refresh(), ...mpd.reps.map((_, i) => follow(i))]);
