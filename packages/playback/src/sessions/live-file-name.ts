/** A `live/{file}` name of the DASH engine's publication. */
export type LiveFile =
  | { readonly kind: "playlist"; readonly rendition: string }
  | { readonly kind: "map"; readonly rendition: string; readonly index: number }
  | { readonly kind: "segment"; readonly rendition: string; readonly msn: number }
  | {
      readonly kind: "part";
      readonly rendition: string;
      readonly msn: number;
      readonly part: number;
    };

const NAME =
  /^(v0|a\d{1,2})(?:(\.m3u8)|-init-(\d{1,6})\.mp4|-(\d{1,15})\.m4s|-(\d{1,15})\.(\d{1,5})\.m4s)$/;

/**
 * Parses a (decoded) file name; anything else is undefined (404). The play routes have
 * already refused separators, `..` and NUL (spec "Playback" 2); this grammar admits
 * none of them either.
 */
export function parseLiveFile(file: string): LiveFile | undefined {
  const m = NAME.exec(file);
  if (!m) return undefined;
  const rendition = m[1]!;
  if (m[2] !== undefined) return { kind: "playlist", rendition };
  if (m[3] !== undefined) return { kind: "map", rendition, index: Number(m[3]) };
  if (m[4] !== undefined) return { kind: "segment", rendition, msn: Number(m[4]) };
  return { kind: "part", rendition, msn: Number(m[5]), part: Number(m[6]) };
}
