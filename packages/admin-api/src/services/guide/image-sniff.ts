/**
 * The image type of a logo from its first bytes (WHATWG MIME Sniffing 6.1,
 * "image type pattern matching", plus SVG), whatever the origin's
 * `Content-Type` claims. Undefined: not an image the gateway serves as a logo.
 */
export function sniffImageType(bytes: Buffer): string | undefined {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  if (starts([0x00, 0x00, 0x01, 0x00])) return "image/x-icon";
  if (starts([0x42, 0x4d])) return "image/bmp";
  const head = bytes
    .subarray(0, 1024)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return "image/svg+xml";
  return undefined;
}
