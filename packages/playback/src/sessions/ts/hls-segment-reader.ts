import { createDecipheriv } from "node:crypto";
import type { RelayFetch } from "../../hls/egress-fetch.js";
import { Fmp4SegmentRemuxer } from "../../ts/fmp4-segment-remuxer.js";
import type { MediaSegment } from "../../ts/hls-playlist-read.js";
import { PACKET_SIZE, SYNC_BYTE } from "../../ts/ts-packet.js";

/** A media segment larger than this is refused (a live segment is seconds of media). */
const MAX_SEGMENT_BYTES = 64 << 20;
/** An init section larger than this is refused. */
const MAX_INIT_BYTES = 1 << 20;

/**
 * How {@link HlsTsRelay} reads one HLS segment: fetched (one request), AES-128 decrypted
 * (RFC 8216bis 5.2: the key fetched once per URI, IV from the tag or the media sequence
 * number), and as TS packets: MPEG-TS on the 188-byte grid, CMAF (fMP4) remuxed natively
 * with its init section (fetched once per URI). Answers why not as a string.
 * @example
 * const reader = new HlsSegmentReader(fetch, (why) => relay.stop(why));
 * const packets = await reader.packets(segment);
 */
export class HlsSegmentReader {
  private readonly keys = new Map<string, Buffer>();
  private remuxer: { map: string; remuxer: Fmp4SegmentRemuxer } | undefined;
  /** Segments fetched (one upstream request each). */
  fetched = 0;

  /** `uncarriable`: an init section whose codecs the remux cannot carry (the source cannot play). */
  constructor(
    private readonly fetch: RelayFetch,
    private readonly uncarriable: (why: string) => void,
  ) {}

  /** One segment's bytes (fetched, AES-128 decrypted), or why not. */
  async bytes(s: MediaSegment): Promise<Buffer | string> {
    const r = await this.fetch(s.uri, MAX_SEGMENT_BYTES);
    this.fetched += 1;
    if (!r.ok) return `segment ${s.msn}: ${r.message}`;
    if (!s.key) return r.bytes;
    if (s.key.method !== "AES-128") return `segment ${s.msn} is encrypted with ${s.key.method}`;
    const key = await this.key(s.key.uri);
    if (typeof key === "string") return key;
    try {
      const decipher = createDecipheriv("aes-128-cbc", key, ivOf(s));
      return Buffer.concat([decipher.update(r.bytes), decipher.final()]);
    } catch {
      return `segment ${s.msn}: AES-128 decryption failed`;
    }
  }

  /** One segment's packets (decrypted, on the 188-byte grid), or why it cannot be sent. */
  async packets(s: MediaSegment): Promise<Buffer[] | string> {
    const bytes = await this.bytes(s);
    if (typeof bytes === "string") return bytes;
    if (s.map !== undefined) return this.remuxed(s.map, s.msn, bytes);
    let at = 0;
    while (at < Math.min(bytes.length, PACKET_SIZE) && bytes[at] !== SYNC_BYTE) at++;
    if (
      bytes[at] !== SYNC_BYTE ||
      (bytes.length > at + PACKET_SIZE && bytes[at + PACKET_SIZE] !== SYNC_BYTE)
    )
      return `segment ${s.msn} is not MPEG-TS`;
    const packets: Buffer[] = [];
    for (; at + PACKET_SIZE <= bytes.length; at += PACKET_SIZE)
      if (bytes[at] === SYNC_BYTE) packets.push(bytes.subarray(at, at + PACKET_SIZE));
    return packets;
  }

  /** A CMAF (fMP4) segment remuxed to TS, with the init section of `map` (fetched once). */
  private async remuxed(map: string, msn: number, bytes: Buffer): Promise<Buffer[] | string> {
    if (this.remuxer?.map !== map) {
      const init = await this.fetch(map, MAX_INIT_BYTES);
      if (!init.ok) return `the init section: ${init.message}`;
      const r = Fmp4SegmentRemuxer.of(init.bytes);
      if (!r.ok) {
        this.uncarriable(`stream.ts cannot carry this channel: ${r.error}`);
        return r.error;
      }
      // A new init section is a new source for the player.
      this.remuxer = { map, remuxer: r.value };
    }
    const packets = this.remuxer.remuxer.segment(bytes);
    return packets.ok ? packets.value : `segment ${msn}: ${packets.error}`;
  }

  private async key(uri: string | undefined): Promise<Buffer | string> {
    if (uri === undefined) return "an AES-128 key without URI";
    const known = this.keys.get(uri);
    if (known) return known;
    const r = await this.fetch(uri, 1024);
    if (!r.ok) return `the AES-128 key: ${r.message}`;
    if (r.bytes.length !== 16) return "the AES-128 key is not 16 bytes";
    this.keys.set(uri, r.bytes);
    return r.bytes;
  }
}

/** RFC 8216bis 5.2: the IV attribute, else the media sequence number as a 128-bit big-endian. */
function ivOf(s: MediaSegment): Buffer {
  const hex = s.key?.iv?.replace(/^0[xX]/, "");
  if (hex && /^[0-9a-fA-F]{1,32}$/.test(hex)) return Buffer.from(hex.padStart(32, "0"), "hex");
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(s.msn), 8);
  return iv;
}
