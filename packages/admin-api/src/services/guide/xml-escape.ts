/**
 * Escapes text and attribute values for the XMLTV the gateway writes. Characters
 * XML 1.0 forbids (C0 controls other than tab, CR, LF; lone surrogates; U+FFFE/F)
 * are dropped: a source that carries them must not make our output ill-formed.
 */
export function escapeXml(value: string): string {
  return value
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      "",
    )
    .replace(/[&<>"]/g, (c) =>
      c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
    );
}
