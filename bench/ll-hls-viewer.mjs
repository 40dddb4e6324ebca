/**
 * A minimal LL-HLS viewer for the benches: follows one media playlist with blocking
 * reloads on its preload hint (`_HLS_msn`/`_HLS_part`, RFC 8216bis 6.2.5.2) and GETs every
 * part once it is listed, the way a low-latency player keeps up with the live edge.
 * Loopback only (it follows the URLs the gateway wrote).
 *
 *   const viewer = followLlHls(mediaPlaylistUrl);
 *   …
 *   const { reloads, parts, bytes, errors } = await viewer.stop();
 */
export function followLlHls(playlistUrl) {
  let stopped = false;
  const stats = { reloads: 0, parts: 0, bytes: 0, errors: 0 };
  /** Newest part fetched, as [msn, index]. */
  let newest;
  const sep = playlistUrl.includes("?") ? "&" : "?";
  const run = (async () => {
    let text = "";
    while (!stopped) {
      try {
        const hint = /#EXT-X-PRELOAD-HINT:TYPE=PART,URI="[^"]*-(\d+)\.(\d+)\.m4s/.exec(text);
        const url = hint
          ? `${playlistUrl}${sep}_HLS_msn=${hint[1]}&_HLS_part=${hint[2]}`
          : playlistUrl;
        const r = await fetch(url);
        text = await r.text();
        stats.reloads += 1;
        if (r.status !== 200) {
          stats.errors += 1;
          await new Promise((res) => setTimeout(res, 500));
          continue;
        }
        for (const m of text.matchAll(/#EXT-X-PART:[^\n]*URI="([^"]+-(\d+)\.(\d+)\.m4s[^"]*)"/g)) {
          const [uri, msn, index] = [m[1], Number(m[2]), Number(m[3])];
          const isNew = !newest || msn > newest[0] || (msn === newest[0] && index > newest[1]);
          if (!isNew) continue;
          newest = [msn, index];
          // The first playlist lists up to 3 target durations of parts: start at its newest.
          if (stats.reloads === 1) continue;
          const p = await fetch(new URL(uri, playlistUrl));
          const body = await p.arrayBuffer();
          if (p.status === 200) {
            stats.parts += 1;
            stats.bytes += body.byteLength;
          } else stats.errors += 1;
        }
      } catch {
        if (!stopped) stats.errors += 1;
        await new Promise((res) => setTimeout(res, 500));
      }
    }
  })();
  return {
    stats,
    async stop() {
      stopped = true;
      await Promise.race([run, new Promise((r) => setTimeout(r, 16_000))]);
      return stats;
    },
  };
}
