// RFC 8216bis 4.2 Attribute Lists: comma-separated AttributeName=AttributeValue pairs.
// Names are [A-Z0-9-]; values are decimal-integer, hexadecimal-sequence,
// decimal-floating-point, quoted-string, enumerated-string or decimal-resolution.

export type AttributeValue =
  | { readonly kind: "quoted"; readonly text: string }
  | { readonly kind: "bare"; readonly text: string };

export type AttributeListResult =
  | { readonly ok: true; readonly attrs: ReadonlyMap<string, AttributeValue> }
  | { readonly ok: false; readonly message: string };

/**
 * Parse an attribute list strictly: unknown characters, duplicate names (4.2: "an
 * AttributeName MUST NOT appear more than once") and unterminated quotes are errors.
 * @example parseAttributeList('URI="a.m4s",DURATION=0.5')
 */
export function parseAttributeList(text: string): AttributeListResult {
  const attrs = new Map<string, AttributeValue>();
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf("=", i);
    if (eq === -1) return { ok: false, message: `attribute without value at offset ${i}` };
    const name = text.slice(i, eq);
    if (!/^[A-Z0-9-]+$/.test(name))
      return { ok: false, message: `invalid attribute name "${name}"` };
    if (attrs.has(name)) return { ok: false, message: `attribute ${name} appears twice` };
    i = eq + 1;
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close === -1) return { ok: false, message: `unterminated quoted-string for ${name}` };
      attrs.set(name, { kind: "quoted", text: text.slice(i + 1, close) });
      i = close + 1;
    } else {
      let end = text.indexOf(",", i);
      if (end === -1) end = text.length;
      const value = text.slice(i, end);
      if (!/^[^",\s]+$/.test(value)) return { ok: false, message: `invalid value for ${name}` };
      attrs.set(name, { kind: "bare", text: value });
      i = end;
    }
    if (i < text.length) {
      if (text[i] !== ",") return { ok: false, message: `expected "," after ${name}` };
      i += 1;
      if (i === text.length) return { ok: false, message: "trailing comma" };
    }
  }
  return { ok: true, attrs };
}

/** decimal-integer (4.2). */
export const isDecimalInteger = (v: AttributeValue | undefined): boolean =>
  v?.kind === "bare" && /^\d{1,20}$/.test(v.text);

/** non-negative decimal-floating-point (4.2). */
export const isDecimalFloat = (v: AttributeValue | undefined): boolean =>
  v?.kind === "bare" && /^\d+(\.\d+)?$/.test(v.text);

/** Numeric value of a bare attribute, NaN otherwise. */
export const numberOf = (v: AttributeValue | undefined): number =>
  v?.kind === "bare" ? Number(v.text) : NaN;
