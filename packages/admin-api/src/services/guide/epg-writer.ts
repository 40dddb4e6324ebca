import type { Channel } from "@svc/core/catalog";
import type { ChannelMatch } from "./channel-matcher.js";
import type { ProgrammeRow } from "./guide-data.js";
import { resolveChannelProgrammes } from "./programme-order.js";
import { escapeXml } from "./xml-escape.js";
import { formatXmltvTime } from "./xmltv-time.js";

/** A guide channel of one source. */
export interface GuideRef {
  readonly sourceId: string;
  readonly xmltvId: string;
}

export interface EpgInput {
  /** Enabled gateway channels, in catalog order. */
  readonly channels: readonly Channel[];
  readonly matchOf: (channelId: string) => ChannelMatch | undefined;
  /**
   * Loads the programmes of these guide channels (each source's current
   * generation, by start) and resolves with their lookup; called for one batch
   * of channels at a time.
   */
  readonly programmes: (
    refs: readonly GuideRef[],
  ) => Promise<(sourceId: string, xmltvId: string) => readonly ProgrammeRow[]>;
  /** Absolute URL of the channel's `/v1/logo/{id}`, or undefined when it has no logo. */
  readonly logoUrl: (channel: Channel, match: ChannelMatch | undefined) => string | undefined;
  /** The `<channel id>` written for a channel; default: its gateway id (HDHomeRun: its GuideNumber). */
  readonly xmltvId?: (channel: Channel) => string;
}

/** Output is handed on in pieces of about this many characters. */
const PIECE_CHARS = 64 * 1024;
/**
 * Gateway channels whose programmes are loaded together: one query per source
 * and batch on PostgreSQL, and memory bounded by two batches (the one being
 * written and the next, loaded meanwhile) whatever the guide's size.
 */
const BATCH_CHANNELS = 64;

/**
 * The XMLTV document (xmltv.dtd: `channel*` then `programme*`), produced piece
 * by piece: each `yield` waits for the consumer, and between two of them only one
 * piece and the programmes of two batches of channels are in memory, whatever
 * the guide's size.
 * Channel ids are the gateway's channel ids unless `xmltvId` names them otherwise.
 */
export async function* renderEpg(input: EpgInput): AsyncGenerator<string> {
  const xmltvId = input.xmltvId ?? ((ch: Channel) => ch.id);
  let piece =
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE tv SYSTEM "xmltv.dtd">\n<tv generator-info-name="svc-gateway">\n';
  for (const ch of input.channels) {
    const match = input.matchOf(ch.id);
    const logo = input.logoUrl(ch, match);
    piece += `<channel id="${escapeXml(xmltvId(ch))}"><display-name>${escapeXml(ch.title)}</display-name>${
      logo === undefined ? "" : `<icon src="${escapeXml(logo)}"/>`
    }</channel>\n`;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = "";
    }
  }
  const withGuide = input.channels.filter(
    (ch) => (input.matchOf(ch.id)?.guideRefs.length ?? 0) > 0,
  );
  const load = (from: number) => {
    const refs = withGuide
      .slice(from, from + BATCH_CHANNELS)
      .flatMap((ch) => input.matchOf(ch.id)?.guideRefs ?? []);
    const loading = input.programmes(refs);
    // Awaited below; a consumer that stops early leaves it unawaited.
    loading.catch(() => undefined);
    return loading;
  };
  let next = withGuide.length > 0 ? load(0) : undefined;
  for (let from = 0; next !== undefined; from += BATCH_CHANNELS) {
    const programmes = await next;
    next = from + BATCH_CHANNELS < withGuide.length ? load(from + BATCH_CHANNELS) : undefined;
    for (const ch of withGuide.slice(from, from + BATCH_CHANNELS)) {
      const refs = input.matchOf(ch.id)?.guideRefs ?? [];
      const id = escapeXml(xmltvId(ch));
      const lists = refs.map((r) => resolveChannelProgrammes(programmes(r.sourceId, r.xmltvId)));
      for (const p of mergeProgrammes(lists)) {
        piece += `<programme start="${formatXmltvTime(p.start)}"${
          p.stop === null ? "" : ` stop="${formatXmltvTime(p.stop)}"`
        } channel="${id}">${p.body}</programme>\n`;
      }
      if (piece.length >= PIECE_CHARS) {
        yield piece;
        piece = "";
      }
    }
  }
  yield `${piece}</tv>\n`;
}

/**
 * Programmes of one channel from several sources, without duplicates: the
 * first list (the matched source) is kept whole; a programme of a later list
 * is added only where it overlaps nothing kept so far (docs/guide.md "Merging").
 */
export function mergeProgrammes(lists: readonly (readonly ProgrammeRow[])[]): ProgrammeRow[] {
  let kept: ProgrammeRow[] = [...(lists[0] ?? [])];
  const end = (p: ProgrammeRow) => p.stop ?? p.start + 1;
  for (const extra of lists.slice(1)) {
    const added: ProgrammeRow[] = [];
    let i = 0;
    for (const p of extra) {
      while (i < kept.length && end(kept[i]!) <= p.start) i++;
      let overlaps = false;
      for (let j = i; j < kept.length && kept[j]!.start < end(p); j++) {
        if (end(kept[j]!) > p.start) {
          overlaps = true;
          break;
        }
      }
      if (!overlaps) added.push(p);
    }
    if (added.length > 0) kept = [...kept, ...added].sort((a, b) => a.start - b.start);
  }
  return kept;
}
