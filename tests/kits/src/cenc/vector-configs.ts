import { encryptFile } from "./fragment-encryptor.js";
import type { EncryptorConfig, TrackEncryption } from "./init-encryptor.js";
import type { CencScheme } from "./reference-cipher.js";
import { syntheticFragments, syntheticInit } from "./synthetic-media.js";

/** Test key material (not secret). */
export const TEST_KID = Buffer.from("00112233445566778899aabbccddeeff", "hex");
export const TEST_KEY = Buffer.from("0f0e0d0c0b0a09080706050403020100", "hex");
export const TEST_CONSTANT_IV = Buffer.from("aabbccddeeff00112233445566778899", "hex");

/** A named way of protecting video and audio tracks, as exercised against ffmpeg. */
export interface VectorRecipe {
  name: string;
  scheme: CencScheme;
  video: Omit<TrackEncryption, "kid" | "key">;
  /** Absent: the audio track stays clear (ffmpeg's whole-sample cens ignores the pattern). */
  audio?: Omit<TrackEncryption, "kid" | "key">;
}

/** cenc with 8- and 16-byte IVs, cbcs 1:9 with a constant IV, and the cens/cbc1 variants. */
export const RECIPES: VectorRecipe[] = [
  {
    name: "cenc-iv8",
    scheme: "cenc",
    video: { ivSize: 8, crypt: 0, skip: 0, subsamples: true },
    audio: { ivSize: 8, crypt: 0, skip: 0, subsamples: false },
  },
  {
    name: "cenc-iv16",
    scheme: "cenc",
    video: { ivSize: 16, crypt: 0, skip: 0, subsamples: true },
    audio: { ivSize: 16, crypt: 0, skip: 0, subsamples: false },
  },
  {
    name: "cbcs-1-9-constant-iv",
    scheme: "cbcs",
    video: { ivSize: 0, constantIv: TEST_CONSTANT_IV, crypt: 1, skip: 9, subsamples: true },
    // ISO/IEC 23001-7 §10.4: tracks other than video use whole-block full-sample encryption.
    audio: { ivSize: 0, constantIv: TEST_CONSTANT_IV, crypt: 0, skip: 0, subsamples: false },
  },
  { name: "cens-1-9", scheme: "cens", video: { ivSize: 16, crypt: 1, skip: 9, subsamples: true } },
  {
    name: "cbc1",
    scheme: "cbc1",
    video: { ivSize: 16, crypt: 0, skip: 0, subsamples: true },
    audio: { ivSize: 16, crypt: 0, skip: 0, subsamples: false },
  },
];

/** Encryptor config protecting the given video/audio track IDs with one KID. */
export function configFor(
  recipe: VectorRecipe,
  tracks: { video?: number; audio?: number },
  kid = TEST_KID,
  key = TEST_KEY,
): EncryptorConfig {
  const map = new Map<number, TrackEncryption>();
  if (tracks.video !== undefined) map.set(tracks.video, { ...recipe.video, kid, key });
  if (tracks.audio !== undefined && recipe.audio)
    map.set(tracks.audio, { ...recipe.audio, kid, key });
  return { scheme: recipe.scheme, tracks: map };
}

/**
 * A clear synthetic file (init + 2 fragments: video, and audio when `audio` has samples)
 * and the same file encrypted by `recipe`, for round-trip properties.
 */
export function encryptedSynthetic(
  recipe: VectorRecipe,
  video: number[],
  audio: number[],
  extra: Partial<EncryptorConfig> = {},
): { clear: Buffer; enc: Buffer } {
  const clear = Buffer.concat([
    syntheticInit(audio.length > 0),
    syntheticFragments({ fragments: 2, videoSampleSizes: video, audioSampleSizes: audio }),
  ]);
  const cfg = {
    ...configFor(recipe, { video: 1, ...(audio.length > 0 && { audio: 2 }) }),
    ...extra,
  };
  return { clear, enc: encryptFile(clear, cfg) };
}
