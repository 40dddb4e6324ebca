/**
 * Checks of what the consumers of `cenc-channel-cpu.mjs` published: clear sample entries
 * (no `encv`/`enca`/`sinf`, no `senc`), decodable by ffprobe without errors, and for the
 * gateway the source's own samples (its mdat equals a clear loop segment's).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mdatHash, probeMp4, tagUris, uriLines } from "../tests/dist/harness/media-probe.js";

/**
 * A GET that is tried once more when the server closed the kept-alive connection as the
 * request went out (undici's "other side closed"): the race every HTTP/1.1 client has at a
 * server's keep-alive timeout, where a GET may be retried (RFC 9112 9.3.1). Seen once after
 * a 420 s run, on a connection the viewer had used (docs/benchmarks.md).
 */
async function get(url) {
  try {
    return await fetch(url);
  } catch (err) {
    if (err?.cause?.code !== "UND_ERR_SOCKET") throw err;
    return await fetch(url);
  }
}

async function fetchBuffer(url) {
  const r = await get(url);
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return Buffer.from(await r.arrayBuffer());
}

function inspect(init, seg) {
  const probed = probeMp4([init, seg]);
  return {
    encrypted: ["encv", "enca", "sinf"].some((b) => init.includes(b)) || seg.includes("senc"),
    frames: probed.frames,
    errors: probed.errors.trim(),
  };
}

/** The video and audio playlists of a gateway channel, absolute URLs. */
export async function channelPlaylists(gw, id) {
  const base = `${gw.url}/v1/play/${id}/`;
  const master = await (await get(`${base}index.m3u8`)).text();
  return [uriLines(master)[0], ...tagUris(master, "EXT-X-MEDIA")].map((u) => new URL(u, base).href);
}

export async function videoPlaylist(gw, id) {
  return (await channelPlaylists(gw, id))[0];
}

/** The newest segment of each rendition of a gateway channel, with whether LL-HLS parts are listed. */
export async function verifyGatewayChannel(gw, id, clearMdatHashes) {
  const renditions = [];
  let parts = false;
  for (const playlist of await channelPlaylists(gw, id)) {
    const media = await (await get(playlist)).text();
    parts ||= media.includes("#EXT-X-PART:");
    const init = await fetchBuffer(new URL(tagUris(media, "EXT-X-MAP")[0], playlist));
    const seg = await fetchBuffer(new URL(uriLines(media).at(-1), playlist));
    renditions.push({ ...inspect(init, seg), sourceSamples: clearMdatHashes.has(mdatHash(seg)) });
  }
  return { renditions, parts };
}

/** ffmpeg's newest listed segment with its init section. */
export function verifyFfmpegOutput(dir) {
  const playlist = readFileSync(join(dir, "media-0.m3u8"), "utf8");
  const init = readFileSync(join(dir, tagUris(playlist, "EXT-X-MAP")[0]));
  const seg = readFileSync(join(dir, uriLines(playlist).at(-1)));
  return inspect(init, seg);
}
