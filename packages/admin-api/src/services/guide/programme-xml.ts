import { escapeXml } from "./xml-escape.js";

/** One child element of a `<programme>` as read from a source. */
export interface ProgrammeChild {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  /** Character data, or the `<value>` of `rating` / `star-rating`. */
  readonly text: string;
}

/**
 * The programme children the gateway keeps, in the order xmltv.dtd's
 * `<!ELEMENT programme (...)>` requires, with the attributes each may carry.
 * Elements not listed (credits, video, audio, review, …) are dropped.
 */
const KEPT: readonly {
  name: string;
  attrs: readonly string[];
  kind: "text" | "empty" | "value";
}[] = [
  { name: "title", attrs: ["lang"], kind: "text" },
  { name: "sub-title", attrs: ["lang"], kind: "text" },
  { name: "desc", attrs: ["lang"], kind: "text" },
  { name: "date", attrs: [], kind: "text" },
  { name: "category", attrs: ["lang"], kind: "text" },
  { name: "keyword", attrs: ["lang"], kind: "text" },
  { name: "language", attrs: ["lang"], kind: "text" },
  { name: "icon", attrs: ["src", "width", "height"], kind: "empty" },
  { name: "url", attrs: ["system"], kind: "text" },
  { name: "country", attrs: ["lang"], kind: "text" },
  { name: "episode-num", attrs: ["system"], kind: "text" },
  { name: "previously-shown", attrs: [], kind: "empty" },
  { name: "premiere", attrs: ["lang"], kind: "text" },
  { name: "new", attrs: [], kind: "empty" },
  { name: "rating", attrs: ["system"], kind: "value" },
  { name: "star-rating", attrs: ["system"], kind: "value" },
];

/** Elements the DTD allows once at most. */
const SINGLE = new Set(["date", "language", "previously-shown", "premiere", "new"]);

export const KEPT_PROGRAMME_CHILDREN: ReadonlySet<string> = new Set(KEPT.map((k) => k.name));

/**
 * Renders the content of one programme, or undefined when it has no title (the
 * DTD requires `title+`). Empty text elements are dropped.
 */
export function renderProgrammeBody(children: readonly ProgrammeChild[]): string | undefined {
  let out = "";
  let titles = 0;
  for (const k of KEPT) {
    let emitted = 0;
    for (const child of children) {
      if (child.name !== k.name) continue;
      if (SINGLE.has(k.name) && emitted > 0) break;
      const text = child.text.trim();
      if (k.kind !== "empty" && text === "") continue;
      if (k.name === "icon" && !/^https?:\/\//i.test(child.attrs.src ?? "")) continue;
      let attrs = "";
      for (const a of k.attrs) {
        const value = child.attrs[a];
        if (value !== undefined && value !== "") attrs += ` ${a}="${escapeXml(value)}"`;
      }
      if (k.kind === "empty") out += `<${k.name}${attrs}/>`;
      else if (k.kind === "value")
        out += `<${k.name}${attrs}><value>${escapeXml(text)}</value></${k.name}>`;
      else out += `<${k.name}${attrs}>${escapeXml(text)}</${k.name}>`;
      emitted += 1;
      if (k.name === "title") titles += 1;
    }
  }
  return titles === 0 ? undefined : out;
}
