import {
  type AttributeValue,
  isDecimalFloat,
  isDecimalInteger,
  numberOf,
  parseAttributeList,
} from "./attribute-list.js";

// Structural checks of rendered playlists against RFC 8216bis. Independent of the
// renderers (it re-parses their text), so tests can hold the renderers to the spec.

type Attrs = ReadonlyMap<string, AttributeValue>;

interface TagRule {
  /** 'none': no value; 'int'; 'attrs' with required names; 'extinf'; 'date'. */
  readonly value: "none" | "int" | "attrs" | "extinf" | "date";
  readonly required?: readonly string[];
  readonly once?: boolean;
}

const MEDIA_TAGS: ReadonlyMap<string, TagRule> = new Map([
  ["EXT-X-VERSION", { value: "int", once: true }],
  ["EXT-X-TARGETDURATION", { value: "int", once: true }],
  ["EXT-X-MEDIA-SEQUENCE", { value: "int", once: true }],
  ["EXT-X-DISCONTINUITY-SEQUENCE", { value: "int", once: true }],
  ["EXT-X-INDEPENDENT-SEGMENTS", { value: "none", once: true }],
  ["EXT-X-ENDLIST", { value: "none", once: true }],
  ["EXT-X-SERVER-CONTROL", { value: "attrs", once: true }],
  ["EXT-X-PART-INF", { value: "attrs", required: ["PART-TARGET"], once: true }],
  ["EXT-X-SKIP", { value: "attrs", required: ["SKIPPED-SEGMENTS"], once: true }],
  ["EXTINF", { value: "extinf" }],
  ["EXT-X-DISCONTINUITY", { value: "none" }],
  ["EXT-X-MAP", { value: "attrs", required: ["URI"] }],
  ["EXT-X-PROGRAM-DATE-TIME", { value: "date" }],
  ["EXT-X-PART", { value: "attrs", required: ["URI", "DURATION"] }],
  ["EXT-X-PRELOAD-HINT", { value: "attrs", required: ["TYPE", "URI"] }],
  ["EXT-X-RENDITION-REPORT", { value: "attrs", required: ["URI", "LAST-MSN"] }],
]);

const MASTER_TAGS: ReadonlyMap<string, TagRule> = new Map([
  ["EXT-X-VERSION", { value: "int", once: true }],
  ["EXT-X-INDEPENDENT-SEGMENTS", { value: "none", once: true }],
  ["EXT-X-MEDIA", { value: "attrs", required: ["TYPE", "GROUP-ID", "NAME"] }],
  ["EXT-X-STREAM-INF", { value: "attrs", required: ["BANDWIDTH"] }],
]);

interface ParsedTag {
  readonly line: number;
  readonly name: string;
  readonly value: string;
  readonly attrs?: Attrs;
}

interface Scan {
  readonly problems: string[];
  readonly tags: ParsedTag[];
  /** Tag that a URI line belongs to (EXTINF or EXT-X-STREAM-INF), by URI line number. */
  readonly uris: { line: number; owner: ParsedTag | undefined }[];
}

function scan(text: string, rules: ReadonlyMap<string, TagRule>, uriOwner: string): Scan {
  const problems: string[] = [];
  const tags: ParsedTag[] = [];
  const uris: Scan["uris"] = [];
  if (!text.endsWith("\n")) problems.push("playlist does not end with a newline");
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines[0] !== "#EXTM3U") problems.push("line 1: must be #EXTM3U (4.4.1.1)");
  const seen = new Set<string>();
  let pendingOwner: ParsedTag | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const n = i + 1;
    if (line === "" || /\s$/.test(line) || line.includes("\r")) {
      problems.push(`line ${n}: blank line or trailing whitespace`);
      continue;
    }
    if (!line.startsWith("#")) {
      if (!pendingOwner) problems.push(`line ${n}: URI without a preceding ${uriOwner}`);
      uris.push({ line: n, owner: pendingOwner });
      pendingOwner = undefined;
      continue;
    }
    if (!line.startsWith("#EXT")) continue; // comment
    const colon = line.indexOf(":");
    const name = line.slice(1, colon === -1 ? undefined : colon);
    const value = colon === -1 ? "" : line.slice(colon + 1);
    const rule = rules.get(name);
    if (!rule) {
      problems.push(`line ${n}: unexpected tag ${name}`);
      continue;
    }
    if (rule.once) {
      if (seen.has(name)) problems.push(`line ${n}: ${name} appears more than once`);
      seen.add(name);
    }
    let attrs: Attrs | undefined;
    const bad = (msg: string): void => void problems.push(`line ${n}: ${name} ${msg}`);
    switch (rule.value) {
      case "none":
        if (colon !== -1) bad("takes no value");
        break;
      case "int":
        if (!/^\d+$/.test(value)) bad(`value "${value}" is not a decimal-integer`);
        break;
      case "extinf":
        if (!/^\d+(\.\d+)?,/.test(value)) bad(`"${value}" is not <duration>,[<title>]`);
        break;
      case "date":
        if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value))
          bad(`"${value}" is not ISO 8601 with zone`);
        break;
      case "attrs": {
        const parsed = parseAttributeList(value);
        if (!parsed.ok) bad(parsed.message);
        else {
          attrs = parsed.attrs;
          for (const req of rule.required ?? []) if (!attrs.has(req)) bad(`lacks required ${req}`);
        }
      }
    }
    const tag: ParsedTag = { line: n, name, value, ...(attrs ? { attrs } : {}) };
    tags.push(tag);
    if (name === uriOwner) {
      if (pendingOwner)
        problems.push(`line ${n}: ${uriOwner} without a URI line after line ${pendingOwner.line}`);
      pendingOwner = tag;
    }
  }
  if (pendingOwner) problems.push(`line ${pendingOwner.line}: ${uriOwner} without a URI line`);
  return { problems, tags, uris };
}

const first = (tags: readonly ParsedTag[], name: string): ParsedTag | undefined =>
  tags.find((t) => t.name === name);

/**
 * Check a media playlist. Returns the problems found; empty means it passed.
 * @example validateMediaPlaylist(text) // [] for a conforming playlist
 */
export function validateMediaPlaylist(text: string): string[] {
  const { problems, tags } = scan(text, MEDIA_TAGS, "EXTINF");
  const td = first(tags, "EXT-X-TARGETDURATION");
  if (!td) problems.push("EXT-X-TARGETDURATION is required (4.4.3.1)");
  const target = Number(td?.value ?? NaN);
  const version = Number(first(tags, "EXT-X-VERSION")?.value ?? 1);
  const firstSegmentLine =
    tags.find((t) => t.name === "EXTINF" || t.name === "EXT-X-PART")?.line ?? Infinity;
  for (const name of [
    "EXT-X-MEDIA-SEQUENCE",
    "EXT-X-DISCONTINUITY-SEQUENCE",
    "EXT-X-TARGETDURATION",
    "EXT-X-SKIP",
  ]) {
    const t = first(tags, name);
    if (t && t.line > firstSegmentLine)
      problems.push(`line ${t.line}: ${name} must precede the first segment`);
  }
  const skip = first(tags, "EXT-X-SKIP");
  const dseq = first(tags, "EXT-X-DISCONTINUITY-SEQUENCE");
  if (skip && dseq && dseq.line > skip.line)
    problems.push(`line ${dseq.line}: EXT-X-DISCONTINUITY-SEQUENCE must precede EXT-X-SKIP`);
  if (skip && version < 9) problems.push("EXT-X-SKIP requires EXT-X-VERSION >= 9 (Section 8)");
  if (first(tags, "EXT-X-MAP") && version < 6)
    problems.push("EXT-X-MAP requires EXT-X-VERSION >= 6 (Section 8)");
  for (const t of tags.filter((x) => x.name === "EXTINF")) {
    const d = Number(t.value.split(",")[0]);
    if (!Number.isInteger(d) && version < 3)
      problems.push(`line ${t.line}: fractional EXTINF requires version 3`);
    if (Math.round(d) > target)
      problems.push(
        `line ${t.line}: EXTINF ${d} rounds above EXT-X-TARGETDURATION ${target} (4.4.3.1)`,
      );
  }
  const partInf = first(tags, "EXT-X-PART-INF");
  const parts = tags.filter((t) => t.name === "EXT-X-PART");
  if (parts.length > 0 && !partInf)
    problems.push("EXT-X-PART present without EXT-X-PART-INF (4.4.3.7)");
  const partTarget = numberOf(partInf?.attrs?.get("PART-TARGET"));
  for (const p of parts) {
    const d = p.attrs?.get("DURATION");
    if (!isDecimalFloat(d))
      problems.push(`line ${p.line}: EXT-X-PART DURATION is not a decimal-floating-point`);
    else if (numberOf(d) > partTarget + 1e-9)
      problems.push(`line ${p.line}: part duration exceeds PART-TARGET (4.4.4.9)`);
    const ind = p.attrs?.get("INDEPENDENT");
    if (ind && ind.text !== "YES")
      problems.push(`line ${p.line}: INDEPENDENT must be YES when present`);
  }
  const control = first(tags, "EXT-X-SERVER-CONTROL")?.attrs;
  if (control) {
    const holdBack = control.get("HOLD-BACK");
    if (holdBack && numberOf(holdBack) < 3 * target - 1e-9)
      problems.push("HOLD-BACK is below 3 x target duration (4.4.3.8)");
    const skipUntil = control.get("CAN-SKIP-UNTIL");
    if (skipUntil && numberOf(skipUntil) < 6 * target - 1e-9)
      problems.push("CAN-SKIP-UNTIL is below 6 x target duration (4.4.3.8)");
    const block = control.get("CAN-BLOCK-RELOAD");
    if (block && block.text !== "YES") problems.push("CAN-BLOCK-RELOAD must be YES when present");
  }
  if (partInf) {
    const phb = control?.get("PART-HOLD-BACK");
    if (!phb) problems.push("PART-HOLD-BACK is required with EXT-X-PART-INF (4.4.3.8)");
    else if (numberOf(phb) < 3 * partTarget - 1e-9)
      problems.push("PART-HOLD-BACK is below 3 x PART-TARGET (4.4.3.8)");
  }
  const ended = first(tags, "EXT-X-ENDLIST");
  if (ended && first(tags, "EXT-X-PRELOAD-HINT"))
    problems.push("EXT-X-PRELOAD-HINT with EXT-X-ENDLIST (4.4.5.3)");
  for (const r of tags.filter((t) => t.name === "EXT-X-RENDITION-REPORT")) {
    if (!isDecimalInteger(r.attrs?.get("LAST-MSN")))
      problems.push(`line ${r.line}: LAST-MSN is not a decimal-integer`);
    const lp = r.attrs?.get("LAST-PART");
    if (lp && !isDecimalInteger(lp))
      problems.push(`line ${r.line}: LAST-PART is not a decimal-integer`);
  }
  return problems;
}

/** Check a master (multivariant) playlist. Returns the problems found. */
export function validateMasterPlaylist(text: string): string[] {
  const { problems, tags } = scan(text, MASTER_TAGS, "EXT-X-STREAM-INF");
  const groups = new Map<string, { names: Set<string>; defaults: number }>();
  for (const m of tags.filter((t) => t.name === "EXT-X-MEDIA")) {
    const a = m.attrs;
    if (!a) continue;
    const group = a.get("GROUP-ID")?.text ?? "";
    const g = groups.get(group) ?? { names: new Set<string>(), defaults: 0 };
    groups.set(group, g);
    const name = a.get("NAME")?.text ?? "";
    if (g.names.has(name))
      problems.push(`line ${m.line}: NAME "${name}" repeats in group "${group}" (4.4.6.1)`);
    g.names.add(name);
    if (a.get("DEFAULT")?.text === "YES") {
      g.defaults += 1;
      if (a.get("AUTOSELECT")?.text !== "YES")
        problems.push(`line ${m.line}: DEFAULT=YES requires AUTOSELECT=YES (4.4.6.1)`);
    }
    const channels = a.get("CHANNELS");
    if (channels && (channels.kind !== "quoted" || !/^\d+/.test(channels.text)))
      problems.push(`line ${m.line}: CHANNELS must be a quoted count`);
  }
  for (const [group, g] of groups)
    if (g.defaults > 1) problems.push(`group "${group}" has ${g.defaults} DEFAULT=YES renditions`);
  for (const s of tags.filter((t) => t.name === "EXT-X-STREAM-INF")) {
    const a = s.attrs;
    if (!a) continue;
    if (!isDecimalInteger(a.get("BANDWIDTH")))
      problems.push(`line ${s.line}: BANDWIDTH is not a decimal-integer`);
    const avg = a.get("AVERAGE-BANDWIDTH");
    if (avg && !isDecimalInteger(avg))
      problems.push(`line ${s.line}: AVERAGE-BANDWIDTH is not a decimal-integer`);
    const res = a.get("RESOLUTION");
    if (res && (res.kind !== "bare" || !/^\d+x\d+$/.test(res.text)))
      problems.push(`line ${s.line}: RESOLUTION is not WxH`);
    const fr = a.get("FRAME-RATE");
    if (fr && (fr.kind !== "bare" || !/^\d+\.\d{3}$/.test(fr.text)))
      problems.push(`line ${s.line}: FRAME-RATE must have three decimals`);
    const codecs = a.get("CODECS");
    if (codecs && codecs.kind !== "quoted")
      problems.push(`line ${s.line}: CODECS must be a quoted-string`);
    const audio = a.get("AUDIO");
    if (audio && !groups.has(audio.text))
      problems.push(`line ${s.line}: AUDIO group "${audio.text}" has no EXT-X-MEDIA`);
  }
  return problems;
}
