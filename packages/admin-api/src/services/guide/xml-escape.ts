const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SPECIAL = /[&<>"]/g;
const ENTITY: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
};

/**
 * Escapes text and attribute values for the XMLTV the gateway writes. Characters
 * XML 1.0 forbids (C0 controls other than tab, CR, LF; lone surrogates; U+FFFE/F)
 * are dropped: a source that carries them must not make our output ill-formed.
 */
export function escapeXml(value: string): string {
  // Each guide text passes here once per refresh; most need neither pass, and a
  // test is cheaper than a replace that finds nothing.
  FORBIDDEN.lastIndex = 0;
  const clean = FORBIDDEN.test(value) ? value.replace(FORBIDDEN, "") : value;
  SPECIAL.lastIndex = 0;
  return SPECIAL.test(clean) ? clean.replace(SPECIAL, (c) => ENTITY[c] ?? c) : clean;
}
