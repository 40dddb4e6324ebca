import { TextDecoder } from "node:util";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import {
  KEPT_PROGRAMME_CHILDREN,
  type ProgrammeChild,
  renderProgrammeBody,
} from "./programme-xml.js";
import { parseXmltvTime } from "./xmltv-time.js";

/** A `<channel>` of a source. */
export interface GuideChannelRecord {
  readonly id: string;
  readonly displayNames: readonly string[];
  readonly icon: string;
}

/** A `<programme>` of a source, times as UTC epoch seconds, content rendered. */
export interface ProgrammeRecord {
  readonly channel: string;
  readonly start: number;
  readonly stop: number | null;
  readonly body: string;
}

export interface XmltvSink {
  channel(record: GuideChannelRecord): void;
  programme(record: ProgrammeRecord): void;
}

/** Bounds of one document (docs/guide.md "Parsing"). */
export interface XmltvLimits {
  /** Element nesting; XMLTV needs 4. */
  readonly maxDepth: number;
  /**
   * Characters the parser may hold at once: one text node, one tag with its
   * attributes, one comment, CDATA section or processing instruction.
   */
  readonly maxTextChars: number;
}

export const DEFAULT_XMLTV_LIMITS: XmltvLimits = { maxDepth: 16, maxTextChars: 1_048_576 };

/**
 * A copy of `s` that does not keep the text it was cut from alive. The strings
 * saxes hands over are V8 slices of the ~64 Ki-character piece being parsed;
 * one kept in a long-lived map (a channel record, a cached time, an id of a
 * channel without `<channel>` element) would keep its whole piece: with one id
 * per piece, a 240 MB document without `<channel>` elements held ~230 MiB of
 * text until its end. Concatenating flattens into a new string of `s`'s own
 * length, and the slice of that is all that stays.
 */
export function detachString(s: string): string {
  return s.length < 13 ? s : ` ${s}`.slice(1);
}

/** A document the reader refuses; the message is safe to show. */
export class XmltvError extends Error {}

/** Distinct time strings remembered per document (a week of minutes is 10,080). */
const TIME_CACHE_ENTRIES = 50_000;

/** Names kept per guide channel (display names, then channel numbers). */
export const MAX_NAMES = 16;

/** Characters handed to saxes per write: large enough that a write costs little. */
const WRITE_CHARS = 65_536;

/** Root attributes kept as the source's `metadata`. */
const ROOT_METADATA = [
  "generator-info-name",
  "generator-info-url",
  "source-info-name",
  "source-info-url",
];

/**
 * One streaming pass over an XMLTV document (saxes, no tree). Only XML's five
 * entities and numeric references are expanded; a DTD internal subset (where
 * entity declarations — billion laughs — live) is refused, and an external DTD
 * is never read: saxes resolves no DTD at all. Depth and the size of a text
 * node or tag are bounded, so memory stays flat whatever the document's size.
 *
 * @example
 * const reader = createXmltvReader("Europe/Berlin", sink);
 * for await (const chunk of body) reader.write(chunk);
 * reader.close();
 */
export function createXmltvReader(
  sourceZone: string,
  sink: XmltvSink,
  limits: XmltvLimits = DEFAULT_XMLTV_LIMITS,
) {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const metadata: Record<string, string> = {};
  let depth = 0;
  let sawRoot = false;
  // Stream position (saxes counts UTF-16 units) where saxes last handed over, and so
  // emptied, what it was buffering; everything written since is held inside saxes.
  // `parser.position` is exact inside its event handlers only (between writes it
  // counts the last chunk twice), so the characters written are counted here.
  let handedOverAt = 0;
  let written = 0;
  const handedOver = () => {
    handedOverAt = parser.position;
  };
  let decoder: TextDecoder | undefined;
  let head = Buffer.alloc(0);
  let skipped = 0;

  // The element being read at depth 2 (a channel or a programme) and its children.
  let item: { kind: "channel" | "programme"; attrs: Record<string, string> } | undefined;
  let children: { name: string; attrs: Record<string, string>; text: string }[] = [];
  let child: { name: string; attrs: Record<string, string>; text: string } | undefined;
  let ratingValue = false;

  // A guide repeats few distinct times (a week of 5-minute slots) across
  // millions of programmes: each distinct string is parsed once.
  const times = new Map<string, number | undefined>();
  const time = (value: string): number | undefined => {
    if (times.has(value)) return times.get(value);
    const parsed = parseXmltvTime(value, sourceZone);
    if (times.size >= TIME_CACHE_ENTRIES) times.clear();
    times.set(detachString(value), parsed);
    return parsed;
  };

  const fail = (message: string): never => {
    throw new XmltvError(message);
  };
  parser.on("error", (err) => fail(`XML error: ${err.message.replace(/^[^:]*:\d+:\d+: /, "")}`));
  // Only these events end a buffered unit: a text node (emitted at the next
  // `<`), a whole tag (at its `>`, attributes included: saxes keeps them until
  // then), a comment, CDATA section or processing instruction at its end.
  // `attribute` and `opentagstart` fire while the tag is still held, so they do
  // not count; nor does a `>` inside text, which ends nothing.
  parser.on("comment", handedOver);
  parser.on("cdata", (text) => {
    handedOver();
    keepText(text);
  });
  parser.on("processinginstruction", handedOver);
  parser.on("xmldecl", handedOver);
  parser.on("doctype", (text) => {
    handedOver();
    // DOCTYPE tv SYSTEM "xmltv.dtd" is normal and harmless (never fetched); an
    // internal subset may declare entities and is refused outright.
    if (text.includes("[")) fail("a DTD internal subset is not accepted");
  });
  parser.on("opentag", (tag: SaxesTagPlain) => {
    handedOver();
    depth += 1;
    if (depth > limits.maxDepth) fail(`elements nested deeper than ${limits.maxDepth}`);
    const attrs = tag.attributes as Record<string, string>;
    if (depth === 1) {
      if (tag.name !== "tv") fail(`root element is <${tag.name}>, not <tv>`);
      sawRoot = true;
      for (const k of ROOT_METADATA) if (attrs[k] !== undefined) metadata[k] = attrs[k];
    } else if (depth === 2) {
      if (tag.name === "channel" || tag.name === "programme") {
        item = { kind: tag.name, attrs };
        children = [];
      }
    } else if (depth === 3 && item !== undefined) {
      const wanted =
        item.kind === "channel"
          ? tag.name === "display-name" || tag.name === "icon" || tag.name === "lcn"
          : KEPT_PROGRAMME_CHILDREN.has(tag.name);
      child = wanted ? { name: tag.name, attrs, text: "" } : undefined;
      if (child !== undefined && children.length < 256) children.push(child);
    } else if (depth === 4 && child !== undefined) {
      ratingValue = tag.name === "value";
    }
  });
  // Character data of a kept child, from text nodes and CDATA sections alike
  // (`<desc><![CDATA[…]]></desc>` is common in grabbers' output).
  const keepText = (text: string) => {
    if (child === undefined) return;
    if (depth === 3 || (depth === 4 && ratingValue)) {
      // A desc longer than this is cut, not refused: it is still a valid programme.
      if (child.text.length < 16_384) child.text += text;
    }
  };
  parser.on("text", (text) => {
    handedOver();
    keepText(text);
  });
  parser.on("closetag", () => {
    handedOver();
    if (depth === 4) ratingValue = false;
    else if (depth === 3) child = undefined;
    else if (depth === 2 && item !== undefined) {
      finishItem(item, children);
      item = undefined;
      children = [];
    }
    depth -= 1;
  });

  function finishItem(
    it: { kind: "channel" | "programme"; attrs: Record<string, string> },
    kids: readonly ProgrammeChild[],
  ): void {
    if (it.kind === "channel") {
      const id = (it.attrs.id ?? "").trim();
      if (id === "") {
        skipped += 1;
        return;
      }
      // Every display name, then the channel numbers (`<lcn>`, newer xmltv.dtd):
      // the DTD's display names may be numbers too, and all of them match.
      const names = [
        ...kids.filter((k) => k.name === "display-name"),
        ...kids.filter((k) => k.name === "lcn"),
      ]
        .map((k) => k.text.trim())
        .filter((n) => n !== "");
      const displayNames = [...new Set(names)].slice(0, MAX_NAMES).map(detachString);
      const icon = kids.find((k) => k.name === "icon" && /^https?:\/\//i.test(k.attrs.src ?? ""));
      // Channel records live until the document's end: nothing of the piece stays.
      sink.channel({
        id: detachString(id),
        displayNames,
        icon: detachString(icon?.attrs.src ?? ""),
      });
      return;
    }
    const channel = (it.attrs.channel ?? "").trim();
    const start = time(it.attrs.start ?? "");
    const stopRaw = it.attrs.stop;
    const stop = stopRaw === undefined ? null : (time(stopRaw) ?? null);
    const body = renderProgrammeBody(kids);
    if (
      channel === "" ||
      start === undefined ||
      body === undefined ||
      (stop !== null && stop <= start)
    ) {
      skipped += 1;
      return;
    }
    sink.programme({ channel, start, stop, body });
  }

  function pickDecoder(bytes: Buffer): TextDecoder {
    if (bytes[0] === 0xfe || bytes[0] === 0xff || (bytes[0] === 0 && bytes[1] === 0x3c))
      fail("UTF-16 documents are not accepted");
    const decl = /^(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(
      bytes.subarray(0, 256).toString("latin1"),
    );
    const name = (decl?.[1] ?? "utf-8").toLowerCase();
    try {
      return new TextDecoder(name);
    } catch {
      return fail(`unsupported encoding ${name}`);
    }
  }

  function feed(text: string): void {
    // Bounds what saxes buffers: each write is cut so that, unless saxes handed
    // a unit over meanwhile, it never holds more than maxTextChars + 1
    // characters; a 1 GiB text node (or one with a `>` every few bytes) is
    // refused there, not collected.
    let offset = 0;
    while (offset < text.length) {
      const room = Math.max(1, limits.maxTextChars - (written - handedOverAt) + 1);
      const part = text.slice(offset, offset + Math.min(WRITE_CHARS, room));
      offset += part.length;
      written += part.length;
      parser.write(part);
      if (written - handedOverAt > limits.maxTextChars)
        fail(`a text node or tag longer than ${limits.maxTextChars} characters`);
    }
  }

  return {
    /** Feeds raw document bytes; throws {@link XmltvError} on a refused document. */
    write(bytes: Buffer): void {
      if (decoder === undefined) {
        head = Buffer.concat([head, bytes]);
        if (head.length < 256) return;
        decoder = pickDecoder(head);
        bytes = head;
        head = Buffer.alloc(0);
      }
      feed(decoder.decode(bytes, { stream: true }));
    },
    /** Ends the document; throws when it was incomplete. */
    close(): { metadata: Record<string, string>; skipped: number } {
      if (decoder === undefined) {
        if (head.length === 0) fail("empty document");
        decoder = pickDecoder(head);
        feed(decoder.decode(head, { stream: true }));
      }
      feed(decoder.decode());
      parser.close();
      if (!sawRoot) fail("no <tv> element");
      return { metadata, skipped };
    },
  };
}
