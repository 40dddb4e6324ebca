import type { Egress } from "@svc/core/egress";
import { egressRelayFetch } from "../../hls/egress-fetch.js";
import { openSourcePlaylist } from "../../hls/source-playlist.js";
import { readMediaPlaylist } from "../../ts/hls-playlist-read.js";
import type { ResolvedSource } from "./channel-sources.js";

/**
 * Failback probes of HLS sources (extensions "Fallback sources and the slate": checked
 * without pulling the source's media, by playlist polls only). A probe fetches the source's
 * playlist (and the variant of `preferHeight` of a master playlist) and answers healthy
 * while it is a live media playlist whose newest segment has advanced within the last three
 * target durations, as seen across this prober's polls (a source's first poll needs only
 * segments and no `#EXT-X-ENDLIST`). No segment is fetched.
 */
export function createHlsFailbackProbe(o: {
  readonly egress: Egress;
  readonly channelId: string;
  readonly preferHeight: number | null;
  readonly maxPlaylistBytes: number;
}): (source: ResolvedSource, signal: AbortSignal) => Promise<boolean> {
  /** Per source index: the newest segment seen and when it first appeared. */
  const seen = new Map<number, { msn: number; at: number }>();
  return async (source, signal) => {
    const fetch = egressRelayFetch(
      o.egress,
      {
        channelId: o.channelId,
        headers: source.headers,
        credentialOrigin: source.credentialOrigin,
        signal,
      },
      () => undefined,
    );
    const first = await openSourcePlaylist(fetch, source.url, o.maxPlaylistBytes, o.preferHeight);
    if (!first.ok) return false;
    let { text, mediaUrl } = first;
    if (text === "") {
      const r = await fetch(mediaUrl, o.maxPlaylistBytes);
      if (!r.ok) return false;
      text = r.bytes.toString("utf8");
      mediaUrl = r.url;
    }
    const m = readMediaPlaylist(text, mediaUrl);
    const newest = m.segments.at(-1);
    if (m.endList || newest === undefined) return false;
    const now = Date.now();
    const before = seen.get(source.index);
    if (before === undefined || newest.msn > before.msn) {
      seen.set(source.index, { msn: newest.msn, at: now });
      return true;
    }
    return now - before.at <= 3 * m.targetDurationSec * 1000;
  };
}
