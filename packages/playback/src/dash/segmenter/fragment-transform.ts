import type { Result } from "../../mp4/parse-result.js";
import type { Representation } from "../manifest/mpd-model.js";
import type { ChunkBytes, CmafChunk } from "./chunk-assembler.js";

/**
 * A rewrite applied between the fetcher and the segmenter, per rendition: the init
 * segment once, then every CMAF chunk (one `moof`+`mdat` with its prefix boxes) in
 * order. This is where CENC decryption plugs in (`cenc/init-decrypt.ts` +
 * `cenc/segment-decrypt.ts` with the context the init produced). Failures are values;
 * the packager reports them as the session's `last_error`.
 */
export interface FragmentTransform {
  init(bytes: Buffer): Result<Buffer>;
  /** A chunk's bytes as served; the transform never changes its timing (the pump reads it first). */
  chunk(chunk: CmafChunk): Result<ChunkBytes>;
  /**
   * True when chunks pass through unchanged (known after `init`), so a preload-hinted
   * part may stream its bytes as they arrive.
   */
  passthrough(): boolean;
}

/** What a transform factory learns about the rendition it serves. */
export interface TransformTarget {
  readonly channelId: string;
  readonly representation: Representation;
}

/**
 * Creates the transform of one rendition, or says why the rendition cannot be packaged
 * (a KID without a key). Called once per rendition and packager start, after the
 * inspection has already ruled out what only the compatibility engine can do, so a
 * refusal here fails the session rather than changing engine.
 */
export type FragmentTransformFactory = (
  target: TransformTarget,
) => { ok: true; transform: FragmentTransform } | { ok: false; reason: string };

/** Clear content: bytes pass through untouched. */
export const IDENTITY_TRANSFORM: FragmentTransform = {
  init: (bytes) => ({ ok: true, value: bytes }),
  chunk: (chunk) => ({ ok: true, value: chunk }),
  passthrough: () => true,
};
