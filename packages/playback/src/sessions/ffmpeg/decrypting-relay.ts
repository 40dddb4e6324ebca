import { type BodyRewrite, readBodyCapped } from "@svc/core/egress";
import { decryptInit } from "../../cenc/init-decrypt.js";
import type { KeyTable } from "../../cenc/kid.js";
import { decryptSegment } from "../../cenc/segment-decrypt.js";
import type { DecryptContext } from "../../cenc/track-protection.js";
import { type BoxHeader, boxesIn, listBoxes, payloadStart } from "../../mp4/box-reader.js";

/** Ceiling of one init or media segment read whole for decryption. */
const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;
/** Boxes an init or media segment starts with (ISO/IEC 14496-12, 23000-19 CMAF). */
const MP4_FIRST_BOXES = new Set(["ftyp", "styp", "moov", "moof", "sidx", "emsg", "prft", "free"]);
/** Init segments remembered per run (one per published Representation, re-read on refresh). */
const MAX_INITS = 32;

interface SeenInit {
  readonly url: string;
  readonly context: DecryptContext;
}

/**
 * The body rewrite the egress proxy applies to an ffmpeg run of an encrypted source
 * (issue 12 item 6): ffmpeg gets clear media and never the key, which would otherwise sit
 * on its command line (`-cenc_decryption_key`, readable in `/proc/<pid>/cmdline`).
 *
 * - An init segment (`moov`) goes through `decryptInit`: `encv`/`enca` renamed back to
 *   their format, `sinf` and `pssh` dropped; its decryption context is kept.
 * - A media segment (`moof`) is decrypted by the native decryptor with the context of the
 *   init it belongs to: the one whose protection of the fragment's track is the same for
 *   every parameter decryption uses; when inits disagree (a video and an audio init both
 *   on track 1 with different schemes), the one whose URL shares the longest prefix with
 *   the segment's, and an error when that is still a tie.
 * - Anything else (the MPD) passes unchanged.
 */
export function decryptingRewrite(keys: KeyTable): BodyRewrite {
  const inits: SeenInit[] = [];
  return async (target, body) => {
    const read = await readBodyCapped(body, MAX_SEGMENT_BYTES);
    if (!read.ok)
      return {
        ok: false,
        message: read.kind === "too_large" ? "segment larger than 64 MiB" : read.message,
      };
    const bytes = read.bytes;
    const top = listBoxes(bytes);
    if (!top.ok) {
      // Text (the MPD) passes; a segment we cannot read must not reach ffmpeg still encrypted.
      const isMp4 = MP4_FIRST_BOXES.has(bytes.toString("latin1", 4, 8));
      return isMp4 ? { ok: false, message: `segment: ${top.error.message}` } : { ok: true, bytes };
    }
    if (top.value.some((b) => b.type === "moov")) {
      const init = decryptInit(bytes);
      if (!init.ok) return { ok: false, message: `init segment: ${init.error.message}` };
      const at = inits.findIndex((i) => i.url === target.href);
      if (at >= 0) inits.splice(at, 1);
      inits.push({ url: target.href, context: init.value.context });
      if (inits.length > MAX_INITS) inits.shift();
      return { ok: true, bytes: init.value.init };
    }
    const moofs = top.value.filter((b) => b.type === "moof");
    if (moofs.length === 0) return { ok: true, bytes };
    const tracks = fragmentTracks(bytes, moofs);
    if (tracks === undefined) return { ok: false, message: "media segment: unreadable moof" };
    const context = contextFor(inits, tracks, target.href);
    if (context === null) return { ok: true, bytes }; // no init protects these tracks: clear
    if (context === undefined)
      return { ok: false, message: "cannot tell which init segment a media segment belongs to" };
    const clear = decryptSegment(bytes, { keys, context });
    return clear.ok
      ? { ok: true, bytes: clear.value }
      : { ok: false, message: `media segment: ${clear.error.message}` };
  };
}

/** track_IDs of the fragments' `tfhd` boxes (ISO/IEC 14496-12 §8.8.7). */
function fragmentTracks(buf: Buffer, moofs: readonly BoxHeader[]): number[] | undefined {
  try {
    const ids = new Set<number>();
    for (const moof of moofs)
      for (const traf of boxesIn(buf, payloadStart(moof), moof.end, "moof"))
        if (traf.type === "traf")
          for (const box of boxesIn(buf, payloadStart(traf), traf.end, "traf"))
            if (box.type === "tfhd") ids.add(buf.readUInt32BE(payloadStart(box) + 4));
    return [...ids];
  } catch {
    return undefined;
  }
}

/** What decrypting a track's fragments depends on (not the clear sample format). */
function decryptionView(context: DecryptContext, trackId: number): string {
  const track = context.tracks.get(trackId);
  const trex = context.trex.find((t) => t.trackId === trackId);
  return JSON.stringify({
    entries: track?.entries.map((e) => e && { scheme: e.scheme, defaults: e.defaults }),
    seig: track?.stblSeig,
    trex: trex && { index: trex.sampleDescriptionIndex, size: trex.sampleSize },
  });
}

/**
 * The context to decrypt a fragment of `tracks` with: null when no init seen protects
 * them, undefined when the candidates disagree and the URL does not settle it.
 */
function contextFor(
  inits: readonly SeenInit[],
  tracks: readonly number[],
  url: string,
): DecryptContext | null | undefined {
  const candidates = inits.filter((i) =>
    tracks.every((t) => i.context.tracks.get(t)?.entries.some((e) => e !== null)),
  );
  const first = candidates[0];
  if (first === undefined) return null;
  const view = (i: SeenInit) => tracks.map((t) => decryptionView(i.context, t)).join("|");
  if (candidates.every((c) => view(c) === view(first))) return first.context;
  const shared = (i: SeenInit) => {
    let n = 0;
    while (n < url.length && url[n] === i.url[n]) n++;
    return n;
  };
  const best = Math.max(...candidates.map(shared));
  const winners = candidates.filter((c) => shared(c) === best);
  return winners.length === 1 ? winners[0]!.context : undefined;
}
