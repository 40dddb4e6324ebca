import type { Result } from "./mpd-model.js";

// ISO/IEC 23009-1 5.3.9.4.4 (Template-based Segment URL construction): identifiers are
// enclosed in '$', may carry a width format tag '%0<width>d', and '$$' is a literal '$'.

export type TemplateIdentifier = "RepresentationID" | "Number" | "Time" | "Bandwidth" | "SubNumber";

const IDENTIFIERS: ReadonlySet<string> = new Set([
  "RepresentationID",
  "Number",
  "Time",
  "Bandwidth",
  "SubNumber",
]);

export type TemplateToken =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "identifier"; readonly id: TemplateIdentifier; readonly width: number };

/** A template checked once at parse time, so expansion itself cannot fail. */
export interface CompiledTemplate {
  readonly source: string;
  readonly tokens: readonly TemplateToken[];
  readonly uses: ReadonlySet<TemplateIdentifier>;
}

/** Values substituted into a template. Numbers and times are bigint-safe. */
export interface TemplateValues {
  readonly representationId: string;
  readonly bandwidth: number;
  readonly number?: number | bigint;
  readonly time?: bigint;
  readonly subNumber?: number;
}

/**
 * Widest `%0<width>d` format tag accepted. A 20-digit $Number$ or $Time$ already spans
 * every 64-bit value; a wider tag only builds absurdly long URLs (a width of 10^8 would
 * expand to a 100 MB string per segment), so it is refused when the template is compiled.
 */
export const MAX_TEMPLATE_WIDTH = 32;

/**
 * Parse a SegmentTemplate@media/@initialization string; `attribute` names it in errors.
 * @example compileTemplate('seg-$Number%05d$.m4s')
 */
export function compileTemplate(
  source: string,
  element = "SegmentTemplate",
  attribute: "media" | "initialization" = "media",
): Result<CompiledTemplate> {
  const tokens: TemplateToken[] = [];
  const uses = new Set<TemplateIdentifier>();
  let literal = "";
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf("$", i);
    if (open === -1) {
      literal += source.slice(i);
      break;
    }
    literal += source.slice(i, open);
    const close = source.indexOf("$", open + 1);
    if (close === -1) {
      return {
        ok: false,
        error: { element, message: `unterminated identifier in template "${source}"` },
      };
    }
    const body = source.slice(open + 1, close);
    i = close + 1;
    if (body === "") {
      literal += "$";
      continue;
    }
    const m = /^([A-Za-z]+)(?:%0(\d+)d)?$/.exec(body);
    if (!m || m[1] === undefined || !IDENTIFIERS.has(m[1])) {
      return {
        ok: false,
        error: { element, message: `unknown template identifier "$${body}$" in "${source}"` },
      };
    }
    // Compare the digits' length first: Number("0".repeat(9) + "1".repeat(400)) is Infinity.
    const widthDigits = m[2]?.replace(/^0+(?=\d)/, "");
    if (
      widthDigits !== undefined &&
      (widthDigits.length > 2 || Number(widthDigits) > MAX_TEMPLATE_WIDTH)
    ) {
      const shown = widthDigits.length > 12 ? `${widthDigits.slice(0, 12)}…` : widthDigits;
      return {
        ok: false,
        error: {
          element,
          message: `SegmentTemplate@${attribute}: format width ${shown} of $${m[1]}$ exceeds the maximum of ${MAX_TEMPLATE_WIDTH}`,
        },
      };
    }
    if (literal) tokens.push({ kind: "literal", text: literal });
    literal = "";
    const id = m[1] as TemplateIdentifier;
    uses.add(id);
    tokens.push({
      kind: "identifier",
      id,
      width: widthDigits === undefined ? 0 : Number(widthDigits),
    });
  }
  if (literal) tokens.push({ kind: "literal", text: literal });
  if (uses.has("Number") && uses.has("Time")) {
    // 5.3.9.4.4: $Number$ and $Time$ are mutually exclusive in one template.
    return {
      ok: false,
      error: { element, message: `template "${source}" uses both $Number$ and $Time$` },
    };
  }
  return { ok: true, value: { source, tokens, uses } };
}

function pad(value: string, width: number): string {
  // The width tag zero-pads; longer values are never truncated.
  return width > value.length ? value.padStart(width, "0") : value;
}

function identifierValue(id: TemplateIdentifier, v: TemplateValues): string {
  switch (id) {
    case "RepresentationID":
      return v.representationId;
    case "Bandwidth":
      return String(v.bandwidth);
    case "Number":
      return String(v.number ?? "");
    case "Time":
      return v.time === undefined ? "" : v.time.toString();
    case "SubNumber":
      return String(v.subNumber ?? "");
  }
}

/**
 * Substitute values. The width tag is honoured on every identifier, including
 * $RepresentationID$ (zero-padded), because origins in the wild write it that way.
 * @example expandTemplate(compiled, { representationId: 'v1', bandwidth: 1, number: 7 }) // 'seg-00007.m4s'
 */
export function expandTemplate(template: CompiledTemplate, values: TemplateValues): string {
  let out = "";
  for (const token of template.tokens) {
    out +=
      token.kind === "literal" ? token.text : pad(identifierValue(token.id, values), token.width);
  }
  return out;
}
