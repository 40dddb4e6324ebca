/**
 * A minimal LL-HLS viewer for the benches: follows one media playlist with blocking
 * reloads on its preload hint (`_HLS_msn`/`_HLS_part`, RFC 8216bis 6.2.5.2) and GETs every
 * part once it is listed, the way a low-latency player keeps up with the live edge.
 * Loopback only (it follows the URLs the gateway wrote).
 *
 *   const viewer = followLlHls(mediaPlaylistUrl, { localAddress: "127.0.1.7" });
 *   …
 *   const { reloads, parts, bytes, errors, errorKinds, late, maxLateMs } = await viewer.stop();
 *
 * `localAddress` (a loopback address) is the viewer's source address: the gateway limits
 * the requests one client address may have parked (`MAX_PARKED_PER_CLIENT`, 32; a player
 * parks about two per rendition), so a bench with many viewers gives each player (the
 * video and audio playlists of one channel) an address of its own, as real viewers have.
 * `errorKinds` counts the errors by kind: `status <code>` or the failure's message.
 *
 * Lateness: a part is listed when the gateway published it, and the viewer waits on each
 * next one. A source may deliver a segment whole at its end (the benches' origins do), so the
 * parts of a segment can only appear together once it ends: the pace is taken per segment,
 * at its last part. The wall time that part appeared minus the media time at its end (the sum
 * of the parts' `DURATION`s since the first) is constant for a packager that keeps pace with
 * a live source. `maxLateMs` is the most that offset grew over its smallest value; `late`
 * counts segments whose last part came more than `lateMs` (default 500 ms) behind the pace.
 */
import { Agent, request } from "node:http";

export function followLlHls(playlistUrl, { lateMs = 500, localAddress } = {}) {
  let stopped = false;
  const stats = { reloads: 0, parts: 0, bytes: 0, errors: 0, late: 0, maxLateMs: 0 };
  /** @type {Record<string, number>} */
  const errorKinds = {};
  const fail = (kind) => {
    stats.errors += 1;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  const agent = new Agent({ keepAlive: true, localAddress });
  const fetch = (url) => get(url, agent);
  /** Media seconds of the parts seen since the first, and the smallest wall-minus-media offset. */
  let media = 0;
  let minOffset = Number.POSITIVE_INFINITY;
  let lastMsn;
  let lastArrived = 0;
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
        text = r.body.toString("utf8");
        stats.reloads += 1;
        if (r.status !== 200) {
          fail(`status ${r.status}`);
          await new Promise((res) => setTimeout(res, 500));
          continue;
        }
        const arrived = performance.now();
        for (const m of text.matchAll(
          /#EXT-X-PART:DURATION=([\d.]+)[^\n]*URI="([^"]+-(\d+)\.(\d+)\.m4s[^"]*)"/g,
        )) {
          const [duration, uri, msn, index] = [Number(m[1]), m[2], Number(m[3]), Number(m[4])];
          const isNew = !newest || msn > newest[0] || (msn === newest[0] && index > newest[1]);
          if (!isNew) continue;
          newest = [msn, index];
          // A part of a new segment: the one before ended with the part seen last.
          if (stats.reloads > 1 && lastMsn !== undefined && msn !== lastMsn) {
            const offset = lastArrived - media * 1000;
            minOffset = Math.min(minOffset, offset);
            const lateBy = offset - minOffset;
            stats.maxLateMs = Math.max(stats.maxLateMs, lateBy);
            if (lateBy > lateMs) stats.late += 1;
          }
          lastMsn = msn;
          lastArrived = arrived;
          media += duration;
          // The first playlist lists up to 3 target durations of parts: start at its newest.
          if (stats.reloads === 1) continue;
          const p = await fetch(new URL(uri, playlistUrl));
          if (p.status === 200) {
            stats.parts += 1;
            stats.bytes += p.body.byteLength;
          } else fail(`status ${p.status}`);
        }
      } catch (e) {
        if (!stopped) fail(e instanceof Error ? e.message : String(e));
        await new Promise((res) => setTimeout(res, 500));
      }
    }
  })();
  return {
    stats,
    errorKinds,
    async stop() {
      stopped = true;
      await Promise.race([run, new Promise((r) => setTimeout(r, 16_000))]);
      agent.destroy();
      return { ...stats, errorKinds };
    },
  };
}

/** One GET through `agent`, its whole body read: `{status, body}`. */
function get(url, agent) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
