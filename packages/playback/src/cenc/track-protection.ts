import { boxesIn, filterBoxes, findBox, payloadStart } from "../mp4/box-reader.js";
import type { InitInfo, TrexDefaults } from "../mp4/init-parser.js";
import { guard, type Result } from "../mp4/parse-result.js";
import { type CryptoParams, parseSeigSgpd, parseTenc } from "./protection-boxes.js";

/** Protection of one sample description (`encv`/`enca` entry). */
export interface EntryProtection {
  /** `schm` scheme_type as stored; only cenc/cens/cbc1/cbcs can be decrypted. */
  scheme: string;
  originalFormat: string;
  defaults: CryptoParams;
}

/** Everything the fragment decryptor needs to know about one track. */
export interface TrackProtection {
  trackId: number;
  /** Indexed by sample_description_index - 1; null for a clear entry. */
  entries: Array<EntryProtection | null>;
  /** `seig` entries of the `stbl` `sgpd`, addressed by group_description_index 1..0x10000. */
  stblSeig: CryptoParams[];
  trex?: TrexDefaults;
}

/** Decryption context derived from an init segment, reused for all of its fragments. */
export interface DecryptContext {
  tracks: Map<number, TrackProtection>;
  trex: TrexDefaults[];
}

/** Builds the {@link DecryptContext} of a parsed init segment. */
export function contextFromInit(buf: Buffer, init: InitInfo): Result<DecryptContext> {
  return guard("tenc", () => {
    const tracks = new Map<number, TrackProtection>();
    const trex: TrexDefaults[] = [];
    for (const t of init.tracks) {
      if (t.trex) trex.push(t.trex);
      const entries = t.sampleEntries.map((e): EntryProtection | null => {
        const p = e.protection;
        if (!p) return null;
        const schiKids = p.schi ? boxesIn(buf, payloadStart(p.schi), p.schi.end, "schi") : [];
        const tenc = findBox(schiKids, "tenc");
        if (!tenc)
          return {
            scheme: p.schemeType,
            originalFormat: p.originalFormat,
            defaults: {
              isProtected: false,
              perSampleIvSize: 0,
              kid: Buffer.alloc(16),
              cryptByteBlock: 0,
              skipByteBlock: 0,
            },
          };
        return {
          scheme: p.schemeType,
          originalFormat: p.originalFormat,
          defaults: parseTenc(buf, tenc),
        };
      });
      const stblSeig = filterBoxes(t.stblChildren, "sgpd").flatMap(
        (b) => parseSeigSgpd(buf, b) ?? [],
      );
      const tp: TrackProtection = { trackId: t.trackId, entries, stblSeig };
      if (t.trex) tp.trex = t.trex;
      tracks.set(t.trackId, tp);
    }
    return { tracks, trex };
  });
}
