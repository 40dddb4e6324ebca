import type { IncomingMessage, ServerResponse } from "node:http";
import { type Origin, startOrigin } from "../harness/origin-server.js";

// Literal MPDs for the probe suite, written here rather than taken from the playback package
// so the suite does not share fixtures with the code it checks.

export const KID_A = "0123456789abcdef0123456789abcdef";
export const KID_B = "fedcba9876543210fedcba9876543210";
export const KEY_A = "00112233445566778899aabbccddeeff";
export const KEY_B = "ffeeddccbbaa99887766554433221100";

/** `cenc:default_KID` spelling of a KID: a UUID. */
const uuid = (kid: string) =>
  `${kid.slice(0, 8)}-${kid.slice(8, 12)}-${kid.slice(12, 16)}-${kid.slice(16, 20)}-${kid.slice(20)}`;

const TEMPLATE = `<SegmentTemplate timescale="1000" duration="2000" startNumber="1" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>`;
const SEGMENT_LIST = `<SegmentList timescale="1000" duration="2000"><Initialization sourceURL="init.mp4"/><SegmentURL media="1.m4s"/><SegmentURL media="2.m4s"/></SegmentList>`;

function protection(kid: string): string {
  return `<ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="${uuid(kid)}"/>
      <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"/>`;
}

function mpd(opts: { segments?: string; kid?: string } = {}): string {
  const cp = opts.kid === undefined ? "" : protection(opts.kid);
  const segments = opts.segments ?? TEMPLATE;
  return `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="dynamic"
     availabilityStartTime="2024-01-01T00:00:00Z" minimumUpdatePeriod="PT2S" minBufferTime="PT2S">
  <Period id="p0" start="PT0S">
    <AdaptationSet contentType="video" mimeType="video/mp4">
      ${cp}
      ${segments}
      <Representation id="v1" bandwidth="2000000" width="1280" height="720" codecs="avc1.64001f"/>
    </AdaptationSet>
    <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
      ${cp}
      ${TEMPLATE}
      <Representation id="a1" bandwidth="128000" codecs="mp4a.40.2"/>
    </AdaptationSet>
  </Period>
</MPD>`;
}

const PLAYLIST = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg1.ts\n";

/** Paths of the probe origin and what each answers. */
const MPDS: Record<string, string> = {
  "/dash/clear.mpd": mpd(),
  "/dash/list.mpd": mpd({ segments: SEGMENT_LIST }),
  "/dash/enc-a.mpd": mpd({ kid: KID_A }),
  "/dash/enc-b.mpd": mpd({ kid: KID_B }),
};

/**
 * A loopback origin for probes: `/live/index.m3u8` (an HLS playlist), `/redirect` (302 to the
 * playlist through a Location carrying credentials, a query and a fragment), the MPDs above,
 * `/dash/big.mpd` (larger than `bigBytes`), and the built-in `/status/{code}`.
 */
export function startProbeOrigin(bigBytes: number, host = "127.0.0.1"): Promise<Origin> {
  const routes = (req: IncomingMessage, res: ServerResponse, origin: Origin): boolean => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (path === "/live/index.m3u8") {
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" }).end(PLAYLIST);
    } else if (path === "/redirect") {
      const target = new URL("/live/index.m3u8?sig=redirect-query-secret#frag", origin.url);
      target.username = "redir-user";
      target.password = "redir-pass";
      res.writeHead(302, { location: target.href }).end();
    } else if (MPDS[path] !== undefined) {
      res.writeHead(200, { "content-type": "application/dash+xml" }).end(MPDS[path]);
    } else if (path === "/dash/big.mpd") {
      res.writeHead(200, { "content-type": "application/dash+xml" });
      res.end(mpd().replace("<Period", `<!-- ${"x".repeat(bigBytes)} -->\n  <Period`));
    } else {
      return false;
    }
    return true;
  };
  return startOrigin({ host, routes });
}
