import { readFileSync } from "node:fs";

/** Heights of the built-in slate (16:9: 854×480, 1280×720, 1920×1080). */
export const SLATE_HEIGHTS = [480, 720, 1080] as const;
export type SlateHeight = (typeof SLATE_HEIGHTS)[number];
/** Every slate clip lasts this long (scripts/make-slate.sh). */
export const SLATE_DURATION_SEC = 2;

/**
 * `packages/playback/assets/slate/`, found through the package's `exports` (as the
 * migrations are): the apps bundle this module, so `import.meta.url` is the app's.
 */
const slateUrl = (name: string) => import.meta.resolve(`@svc/playback/assets/slate/${name}`);

/** The slate's resolution class for a picture height: the nearest one, 720 when unknown. */
export function slateHeightFor(height: number | null | undefined): SlateHeight {
  if (height === null || height === undefined || height <= 0) return 720;
  let best: SlateHeight = 720;
  for (const h of SLATE_HEIGHTS) if (Math.abs(h - height) < Math.abs(best - height)) best = h;
  return best;
}

const tsCache = new Map<SlateHeight, Buffer>();

/** The MPEG-TS slate of one height (read once, then kept: at most 40 KiB each). */
export function slateTs(height: SlateHeight): Buffer {
  let bytes = tsCache.get(height);
  if (bytes === undefined) {
    bytes = readFileSync(new URL(slateUrl(`slate-${height}.mp2t`)));
    tsCache.set(height, bytes);
  }
  return bytes;
}
