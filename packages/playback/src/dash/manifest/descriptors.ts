import type {
  AudioChannelConfiguration,
  ContentProtection,
  ContentType,
  Descriptor,
  Result,
} from "./mpd-model.js";
import { attrByLocalName, childrenNamed, type XmlElement } from "./xml-tree.js";

// Descriptor elements (ISO/IEC 23009-1 5.8.2) and content-type inference shared by the
// AdaptationSet and Representation readers.

/** Role, Accessibility and similar plain descriptors. */
export function readDescriptors(el: XmlElement, name: string): Descriptor[] {
  return childrenNamed(el, name).map((d) => {
    const value = d.attrs.value;
    return value === undefined
      ? { schemeIdUri: d.attrs.schemeIdUri ?? "" }
      : { schemeIdUri: d.attrs.schemeIdUri ?? "", value };
  });
}

// ISO/IEC 23001-8 (CICP) ChannelConfiguration index -> channel count.
const CICP_CHANNELS: ReadonlyMap<number, number> = new Map([
  [1, 1],
  [2, 2],
  [3, 3],
  [4, 4],
  [5, 5],
  [6, 6],
  [7, 8],
  [9, 3],
  [10, 4],
  [11, 7],
  [12, 8],
  [13, 24],
  [14, 8],
  [15, 12],
  [16, 10],
  [17, 12],
  [18, 14],
  [19, 12],
  [20, 14],
]);

// Dolby channel mask (ETSI TS 102 366 Table I.1.1 style), bit 15 (MSB) first; some bits
// stand for a left/right pair and so count twice.
const DOLBY_BIT_WEIGHTS = [1, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 2, 1, 2, 1, 1];

function channelsFor(schemeIdUri: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  switch (schemeIdUri) {
    case "urn:mpeg:dash:23003:3:audio_channel_configuration:2011":
      return /^\d+$/.test(v) ? Number(v) : undefined;
    case "urn:mpeg:mpegB:cicp:ChannelConfiguration":
      return /^\d+$/.test(v) ? CICP_CHANNELS.get(Number(v)) : undefined;
    case "tag:dolby.com,2014:dash:audio_channel_configuration:2011":
    case "urn:dolby:dash:audio_channel_configuration:2011": {
      if (!/^[0-9a-fA-F]{1,4}$/.test(v)) return undefined;
      const mask = parseInt(v, 16);
      let count = 0;
      DOLBY_BIT_WEIGHTS.forEach((weight, i) => {
        if (mask & (1 << (15 - i))) count += weight;
      });
      return count || undefined;
    }
    default:
      return undefined;
  }
}

/** AudioChannelConfiguration elements with the channel count decoded for known schemes. */
export function readAudioChannelConfigurations(el: XmlElement): AudioChannelConfiguration[] {
  return childrenNamed(el, "AudioChannelConfiguration").map((d) => {
    const schemeIdUri = d.attrs.schemeIdUri ?? "";
    const value = d.attrs.value;
    const channels = channelsFor(schemeIdUri, value);
    return {
      schemeIdUri,
      ...(value === undefined ? {} : { value }),
      ...(channels === undefined ? {} : { channels }),
    };
  });
}

/** ContentProtection elements; `cenc:default_KID` normalised to 32 lowercase hex digits. */
export function readContentProtection(el: XmlElement): Result<ContentProtection[]> {
  const out: ContentProtection[] = [];
  for (const cp of childrenNamed(el, "ContentProtection")) {
    const schemeIdUri = cp.attrs.schemeIdUri ?? "";
    const value = cp.attrs.value;
    const rawKid = attrByLocalName(cp, "default_KID");
    let defaultKid: string | undefined;
    if (rawKid !== undefined) {
      defaultKid = rawKid.trim().replace(/-/g, "").toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(defaultKid)) {
        return {
          ok: false,
          error: {
            element: cp.path,
            message: `cenc:default_KID "${rawKid}" is not a 16-byte UUID`,
          },
        };
      }
    }
    out.push({
      schemeIdUri,
      ...(value === undefined ? {} : { value }),
      ...(defaultKid === undefined ? {} : { defaultKid }),
    });
  }
  return { ok: true, value: out };
}

const TEXT_CODECS = /^(stpp|wvtt|tx3g|c608|c708)/i;

/**
 * Content type from @contentType, else the mimeType's top-level type, else the codecs
 * (stpp/wvtt are subtitle tracks carried as application/mp4).
 */
export function inferContentType(
  contentType?: string,
  mimeType?: string,
  codecs?: string,
): ContentType {
  const known: readonly ContentType[] = ["video", "audio", "text", "image", "application"];
  const ct = contentType?.trim().toLowerCase();
  if (ct && (known as readonly string[]).includes(ct)) return ct as ContentType;
  if (codecs && TEXT_CODECS.test(codecs.trim())) return "text";
  const top = mimeType?.trim().toLowerCase().split("/")[0];
  if (mimeType && /ttml|vtt/i.test(mimeType)) return "text";
  if (top && (known as readonly string[]).includes(top)) return top as ContentType;
  return "unknown";
}
