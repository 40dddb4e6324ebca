import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium, playFor } from "../harness/hlsjs-page.js";
import { requestJson } from "../harness/http-client.js";
import { uriLines } from "../harness/media-probe.js";
import { until } from "../harness/until.js";

// Shared by the failover suites (extensions "Fallback sources and the slate"): reading a
// channel's session, its failover counters and its published playlist.

/** What `/v1/status` says of a channel with fallback sources. */
export interface FailoverSession {
  readonly active_source: number;
  readonly failovers: number;
  readonly state: string;
}

/** The session of `channelId` in `/v1/status` of the gateway at `base`. */
export async function failoverSession(
  base: string,
  token: string,
  channelId: string,
): Promise<FailoverSession> {
  const r = await requestJson(`${base}/v1/status`, { token });
  assert.equal(r.status, 200, r.text);
  return r.body.sessions.find((s: { channel_id: string }) => s.channel_id === channelId);
}

/** Waits until `session()` names source `index` as active, and answers that session. */
export function untilActive(
  session: () => Promise<FailoverSession>,
  index: number,
  what: string,
): Promise<FailoverSession> {
  return until(what, async () => {
    const now = await session();
    return now.active_source === index ? now : undefined;
  });
}

/** The media playlist behind `url` (a master playlist is followed to its first variant). */
export async function mediaPlaylist(url: string): Promise<{ text: string; url: string }> {
  const r = await fetch(url);
  const text = await r.text();
  assert.equal(r.status, 200, text);
  if (!text.includes("#EXT-X-STREAM-INF")) return { text, url };
  return mediaPlaylist(new URL(uriLines(text)[0]!, url).href);
}

/** `svc_failovers_total{reason}` from `/metrics` of the gateway at `base`. */
export async function failoverMetric(base: string, reason: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^svc_failovers_total\\{reason="${reason}"\\} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Width and height ("1280,720") of the video of the newest segment in the media playlist
 * behind `url`, read by ffprobe from a copy written into `scratch`.
 */
export async function newestPicture(url: string, scratch: string): Promise<string> {
  const m = await mediaPlaylist(url);
  const uri = new URL(uriLines(m.text).at(-1)!, m.url);
  const path = join(scratch, "newest.ts");
  writeFileSync(path, Buffer.from(await (await fetch(uri)).arrayBuffer()));
  const r = spawnSync(
    "ffprobe",
    ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height"].concat([
      "-of",
      "csv=p=0",
      path,
    ]),
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n")[0] ?? "";
}

/**
 * hls.js in headless Chromium (the page at `pageOrigin`, allowed by the gateway's CORS)
 * plays `url` for 25 s without a fatal error while `switchSources` makes the channel
 * switch (it runs once playback has started and resolves once the switch is seen); then
 * `/v1/status` counts more failovers than before it and names `activeAfter` active.
 */
export async function playAcrossSwitch(o: {
  readonly pageOrigin: string;
  readonly url: string;
  readonly session: () => Promise<FailoverSession>;
  readonly switchSources: () => Promise<unknown>;
  readonly activeAfter: number;
}): Promise<void> {
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    let before = 0;
    await playFor(tab, o.pageOrigin, o.url, 25, async () => {
      before = (await o.session()).failovers;
      await o.switchSources();
    });
    const s = await o.session();
    assert.ok(s.failovers > before, `${before} → ${s.failovers}`);
    assert.equal(s.active_source, o.activeAfter);
  } finally {
    await browser.close();
  }
}
