/**
 * A live ClearKey-encrypted DASH origin for benchmarks, on loopback, publishing the loop of
 * `cenc-loop.mjs` against the wall clock: segment n is the loop's segment (n - 1) mod S with its
 * `tfdt` and `mfhd` moved forward by whole loops. Serving a segment is a copy and a few integer
 * patches; no encoder and no encryptor run while consumers are measured.
 *
 * Each consumer reads its own path (`/<consumer>/out.mpd`), so the origin counts the media bytes
 * every consumer fetched. A request for the segment being "encoded" (started, not ended) is held
 * until it ends, as the test harness's encrypting origin holds an incomplete segment.
 */
import { createServer } from "node:http";
import { SEGMENT_SEC } from "./cenc-loop.mjs";

/** Segment n (1-based) of a rendition: loop index, index in the loop, MPD time and duration. */
function segmentAt(rep, n) {
  const k = Math.floor((n - 1) / rep.segs.length);
  const i = (n - 1) % rep.segs.length;
  return { k, i, t: k * rep.loop + rep.segs[i].t, d: rep.segs[i].d };
}

/** The newest segment of `rep` that ended by `elapsedSec` after availabilityStartTime (0: none). */
function lastComplete(rep, elapsedSec) {
  const now = elapsedSec * rep.timescale;
  const k = Math.max(0, Math.floor((now - rep.start) / rep.loop));
  const within = rep.segs.filter((s) => k * rep.loop + s.t + s.d <= now).length;
  return k * rep.segs.length + within;
}

function segmentBytes(rep, n, clear) {
  const { k, i } = segmentAt(rep, n);
  const src = (clear ? rep.plain : rep.encrypted)[i];
  const out = Buffer.from(src.bytes);
  for (const p of src.patches) {
    if (p.kind === "mfhd") out.writeUInt32BE(out.readUInt32BE(p.at) + k * rep.moofsPerLoop, p.at);
    else if (p.wide) out.writeBigUInt64BE(out.readBigUInt64BE(p.at) + BigInt(k * rep.loop), p.at);
    else out.writeUInt32BE(out.readUInt32BE(p.at) + k * rep.loop, p.at);
  }
  return out;
}

/**
 * The live MPD at `nowMs`. `timeline`: SegmentTimeline listing the newest `window` complete
 * segments (as ffmpeg's dash muxer writes, without its low-latency attributes); `duration`:
 * SegmentTemplate@duration, where clients derive segment numbers from the clock.
 */
function liveMpd(loop, ast, nowMs, timeUrl, o, clear) {
  const elapsed = (nowMs - ast) / 1000;
  const sets = loop.reps.map((rep, setId) => {
    let template;
    if (o.mpd === "duration") {
      template = `<SegmentTemplate timescale="${rep.timescale}" duration="${SEGMENT_SEC * rep.timescale}" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1"/>`;
    } else {
      const last = lastComplete(rep, elapsed);
      const first = Math.max(1, last - o.window + 1);
      const timeline = [];
      for (let n = first; n <= last; n++) {
        const s = segmentAt(rep, n);
        timeline.push(`<S t="${s.t}" d="${s.d}"/>`);
      }
      template = `<SegmentTemplate timescale="${rep.timescale}" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="${first}">
     <SegmentTimeline>${timeline.join("")}</SegmentTimeline>
    </SegmentTemplate>`;
    }
    const lang = rep.lang ? ` lang="${rep.lang}"` : "";
    return `  <AdaptationSet id="${setId}" contentType="${rep.kind}" segmentAlignment="true" startWithSAP="1"${lang}>
${clear ? "" : loop.protection}
   <Representation ${rep.rep}>
    ${rep.channelConfig}
    ${template}
   </Representation>
  </AdaptationSet>`;
  });
  const depth = o.mpd === "duration" ? 30 : o.window * SEGMENT_SEC;
  return `<?xml version="1.0" encoding="utf-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" profiles="urn:mpeg:dash:profile:isoff-live:2011" type="dynamic" minimumUpdatePeriod="PT${SEGMENT_SEC}S" availabilityStartTime="${new Date(ast).toISOString()}" publishTime="${new Date(nowMs).toISOString()}" timeShiftBufferDepth="PT${depth}S" maxSegmentDuration="PT${SEGMENT_SEC + 1}S" minBufferTime="PT${SEGMENT_SEC}S">
 <Period id="0" start="PT0S">
${sets.join("\n")}
 </Period>
 <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="${timeUrl}"/>
</MPD>
`;
}

/**
 * Serves `loop` live on 127.0.0.1: encrypted at `/<consumer>/out.mpd`, and the same media
 * in the clear at `/clear/<consumer>/out.mpd` (a control). `counters()` answers, per consumer,
 * the media bytes (init + segments) and MPD bytes of completed responses and the 404s.
 */
export async function startCencOrigin(loop, mpdOptions = { mpd: "timeline", window: 5 }) {
  // 30 s in the past, so consumers find a full window at once, on a whole second: ffmpeg 5.1
  // drops the fraction of availabilityStartTime and would ask for segments not yet begun.
  const ast = Math.floor(Date.now() / 1000) * 1000 - 30_000;
  const stats = new Map();
  const cache = new Map();
  const held = new Set();
  const statFor = (c) => {
    const s = stats.get(c) ?? { media: 0, mpd: 0, requests: 0, notFound: 0 };
    stats.set(c, s);
    return s;
  };
  const server = createServer((req, res) => {
    void answer(req, res).catch(() => res.destroy());
  });
  let origin = "";
  const send = (res, stat, field, type, body) => {
    res.once("finish", () => {
      stat[field] += body.length;
    });
    res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
  };
  async function answer(req, res) {
    const path = new URL(req.url ?? "/", "http://origin").pathname;
    if (path === "/time") {
      res.writeHead(200, { "content-type": "text/plain" }).end(new Date().toISOString());
      return;
    }
    const m = /^\/(clear\/)?([\w-]+)\/([\w.-]+)$/.exec(path);
    const clear = m?.[1] !== undefined;
    const stat = m ? statFor(m[2]) : undefined;
    if (stat) stat.requests++;
    const name = m?.[3] ?? "";
    if (stat && name === "out.mpd") {
      send(
        res,
        stat,
        "mpd",
        "application/dash+xml",
        Buffer.from(liveMpd(loop, ast, Date.now(), `${origin}/time`, mpdOptions, clear)),
      );
      return;
    }
    const init = /^init-stream(\d+)\.m4s$/.exec(name);
    const seg = /^chunk-stream(\d+)-(\d+)\.m4s$/.exec(name);
    const rep = loop.reps.find((r) => r.id === (init ?? seg)?.[1]);
    if (stat && rep && init) {
      send(res, stat, "media", "video/mp4", clear ? rep.clearInit : rep.init.init);
      return;
    }
    const n = Number(seg?.[2]);
    if (stat && rep && seg && n >= 1) {
      const s = segmentAt(rep, n);
      const endMs = ast + ((s.t + s.d) / rep.timescale) * 1000;
      const startMs = ast + (s.t / rep.timescale) * 1000;
      if (startMs <= Date.now()) {
        // Being "encoded": answer once it is complete.
        if (endMs > Date.now()) {
          await new Promise((r) => {
            const t = setTimeout(() => {
              held.delete(t);
              r();
            }, endMs - Date.now());
            held.add(t);
          });
        }
        const key = `${clear}-${rep.id}-${n}`;
        let body = cache.get(key);
        if (body === undefined) {
          body = segmentBytes(rep, n, clear);
          cache.set(key, body);
          if (cache.size > 32) cache.delete(cache.keys().next().value);
        }
        if (!res.destroyed) send(res, stat, "media", "video/iso.segment", body);
        return;
      }
    }
    if (stat) stat.notFound++;
    res.writeHead(404).end();
  }
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    /** MPD URL of one consumer, of the encrypted stream or of the clear control. */
    url: (consumer, clear = false) => `${origin}/${clear ? "clear/" : ""}${consumer}/out.mpd`,
    counters: () => new Map([...stats].map(([c, s]) => [c, { ...s }])),
    async stop() {
      for (const t of held) clearTimeout(t);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
