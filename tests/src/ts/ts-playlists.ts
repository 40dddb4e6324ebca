import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

/** An answer read whole. */
export interface Answer {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
  readonly text: string;
}

/** A GET whose answer is read whole (redirects not followed). */
export async function get(url: string): Promise<Answer> {
  const r = await fetch(url, { redirect: "manual" });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { url, status: r.status, headers: r.headers, bytes, text: bytes.toString("utf8") };
}

/** The media playlist a ts channel's master playlist names; the answer itself when not 200. */
export async function getMedia(indexUrl: string): Promise<Answer> {
  const master = await get(indexUrl);
  if (master.status !== 200) return master;
  const uri = master.text.split("\n").find((l) => l !== "" && !l.startsWith("#"));
  assert.ok(uri, master.text);
  return get(new URL(uri, indexUrl).href);
}

export interface PlaylistEntry {
  readonly msn: number;
  readonly duration: number;
  readonly uri: string;
  /** An EXT-X-DISCONTINUITY tag stands before it. */
  readonly discontinuity: boolean;
}

/**
 * The entries of a media playlist, numbered from its EXT-X-MEDIA-SEQUENCE; relative URIs
 * resolved against `base` (the playlist's URL), absolute ones as they are.
 */
export function entries(text: string, base = "http://relative.invalid/"): PlaylistEntry[] {
  let msn = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(text)?.[1] ?? 0);
  const out: PlaylistEntry[] = [];
  let discontinuity = false;
  let duration = -1;
  for (const l of text.split("\n")) {
    if (l === "#EXT-X-DISCONTINUITY") discontinuity = true;
    const m = /^#EXTINF:([\d.]+),/.exec(l);
    if (m) duration = Number(m[1]);
    else if (l !== "" && !l.startsWith("#") && duration >= 0) {
      out.push({ msn: msn++, duration, uri: new URL(l, base).href, discontinuity });
      discontinuity = false;
      duration = -1;
    }
  }
  return out;
}

/** The streams ffprobe reads at `url` (a playlist or a file): codec names, sorted. */
export function probeCodecs(url: string): string[] {
  const r = spawnSync(
    "ffprobe",
    ["-v", "error", "-of", "json", "-show_entries", "stream=codec_name", url],
    { encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { streams: { codec_name: string }[] }).streams
    .map((s) => s.codec_name)
    .sort();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
