import { SaxesParser, type SaxesTagPlain } from "saxes";
import type { MpdError, Result } from "./mpd-model.js";

/**
 * A minimal element tree built from the streaming saxes events. Element names are
 * local names (namespace prefix stripped, MPDs use the default namespace); attribute
 * names are kept as written, so `cenc:default_KID` stays prefixed (see {@link attrByLocalName}).
 */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** Concatenated character data directly inside this element (not trimmed). */
  text: string;
  /** `Parent/Child` path used to name the element in parse errors. */
  readonly path: string;
}

/** Limits applied while reading XML. */
export interface XmlReadOptions {
  /** Reject documents larger than this many bytes (default 8 MiB, the gateway's max_playlist_bytes). */
  readonly maxBytes?: number;
  /** Reject documents nested deeper than this (default 32; real MPDs use < 10). */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_MPD_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_DEPTH = 32;

class XmlAbort extends Error {
  constructor(readonly mpdError: MpdError) {
    super(mpdError.message);
  }
}

function localName(qname: string): string {
  const colon = qname.indexOf(":");
  return colon === -1 ? qname : qname.slice(colon + 1);
}

/** Incremental builder: feed text chunks, then close. Shared by the sync and async readers. */
class TreeBuilder {
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private readonly stack: XmlElement[] = [];
  private root: XmlElement | undefined;
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxDepth: number,
  ) {
    this.parser.on("opentag", (tag: SaxesTagPlain) => this.open(tag));
    this.parser.on("closetag", () => {
      this.stack.pop();
    });
    this.parser.on("text", (text: string) => this.appendText(text));
    this.parser.on("cdata", (text: string) => this.appendText(text));
    this.parser.on("error", (err: Error) => {
      throw new XmlAbort({ element: this.currentPath(), message: `malformed XML: ${err.message}` });
    });
  }

  private currentPath(): string {
    return this.stack[this.stack.length - 1]?.path ?? "#document";
  }

  private open(tag: SaxesTagPlain): void {
    const name = localName(tag.name);
    const parent = this.stack[this.stack.length - 1];
    if (this.stack.length >= this.maxDepth) {
      throw new XmlAbort({ element: name, message: `nesting deeper than ${this.maxDepth} levels` });
    }
    const el: XmlElement = {
      name,
      attrs: tag.attributes,
      children: [],
      text: "",
      path: parent ? `${parent.name}/${name}` : name,
    };
    if (parent) parent.children.push(el);
    else this.root = el;
    this.stack.push(el);
  }

  private appendText(text: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top) top.text += text;
  }

  write(chunk: string, byteLength: number): void {
    this.bytes += byteLength;
    if (this.bytes > this.maxBytes) {
      throw new XmlAbort({
        element: "#document",
        message: `document exceeds ${this.maxBytes} bytes`,
      });
    }
    this.parser.write(chunk);
  }

  finish(): XmlElement {
    this.parser.close();
    if (!this.root) throw new XmlAbort({ element: "#document", message: "no root element" });
    return this.root;
  }
}

function guard(run: () => XmlElement): Result<XmlElement> {
  try {
    return { ok: true, value: run() };
  } catch (err) {
    if (err instanceof XmlAbort) return { ok: false, error: err.mpdError };
    throw err;
  }
}

/**
 * Parse a complete XML document held in memory.
 * @example readXmlTree('<MPD type="static"/>') // {ok:true, value:{name:'MPD', ...}}
 */
export function readXmlTree(
  xml: string | Uint8Array,
  opts: XmlReadOptions = {},
): Result<XmlElement> {
  const builder = new TreeBuilder(
    opts.maxBytes ?? DEFAULT_MAX_MPD_BYTES,
    opts.maxDepth ?? DEFAULT_MAX_DEPTH,
  );
  return guard(() => {
    if (typeof xml === "string") builder.write(xml, Buffer.byteLength(xml, "utf8"));
    else builder.write(new TextDecoder("utf-8").decode(xml), xml.byteLength);
    return builder.finish();
  });
}

/**
 * Parse XML as it arrives (e.g. an HTTP response body); stops reading as soon as the
 * byte ceiling is crossed, so an oversized or endless body never gets buffered whole.
 */
export async function readXmlTreeFromChunks(
  chunks: AsyncIterable<Uint8Array | string>,
  opts: XmlReadOptions = {},
): Promise<Result<XmlElement>> {
  const builder = new TreeBuilder(
    opts.maxBytes ?? DEFAULT_MAX_MPD_BYTES,
    opts.maxDepth ?? DEFAULT_MAX_DEPTH,
  );
  const decoder = new TextDecoder("utf-8");
  try {
    for await (const chunk of chunks) {
      if (typeof chunk === "string") builder.write(chunk, Buffer.byteLength(chunk, "utf8"));
      else builder.write(decoder.decode(chunk, { stream: true }), chunk.byteLength);
    }
    const tail = decoder.decode();
    if (tail) builder.write(tail, 0);
  } catch (err) {
    if (err instanceof XmlAbort) return { ok: false, error: err.mpdError };
    throw err;
  }
  return guard(() => builder.finish());
}

/** Children of `el` with the given local name, in document order. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** First child of `el` with the given local name. */
export function firstChild(el: XmlElement, name: string): XmlElement | undefined {
  return el.children.find((c) => c.name === name);
}

/**
 * Attribute lookup by local name, whatever prefix the document bound to its namespace
 * (`cenc:default_KID` and `ns2:default_KID` both answer `default_KID`).
 */
export function attrByLocalName(el: XmlElement, local: string): string | undefined {
  const direct = el.attrs[local];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(el.attrs)) {
    if (key.endsWith(`:${local}`) && !key.startsWith("xmlns:")) return value;
  }
  return undefined;
}
