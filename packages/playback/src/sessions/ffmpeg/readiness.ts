import type { Ingress } from "@svc/core/catalog";
import type { Readiness } from "@svc/core/http";
import type { EngineName } from "../../dash/inspection/inspection-model.js";
import { checkFfmpeg, type FfmpegStatus } from "./ffmpeg-check.js";

/** The channel fields readiness looks at. */
export interface ReadinessChannel {
  readonly id: string;
  readonly ingress: Ingress;
  readonly disabled: boolean;
  /** A DASH channel with fallback sources runs on the native TS engine (docs/failover.md). */
  readonly fallback_sources?: readonly unknown[];
}

/**
 * Spec `/readyz`: not ready when any enabled DASH channel resolves to the FFmpeg
 * compatibility engine and ffmpeg is not runnable; ready otherwise. `engineFor` says
 * which engine a channel resolves to (the channel's `engine`, or for `auto` its running
 * session's; undefined while unknown). `ffmpeg` is only asked when some channel needs it.
 * The reason names neither channels nor paths: the endpoint is public.
 * @example await readiness(catalog.list(), engineOf, () => checkFfmpeg(config.media.ffmpeg_path))
 */
export async function readiness<C extends ReadinessChannel>(
  channels: readonly C[],
  engineFor: (channel: C) => EngineName | undefined,
  ffmpeg: () => Promise<FfmpegStatus>,
): Promise<Readiness> {
  const needing = channels.filter(
    (c) => c.ingress === "dash" && !c.disabled && engineFor(c) === "ffmpeg",
  ).length;
  if (needing === 0 || (await ffmpeg()).ok) return { ready: true };
  return {
    ready: false,
    reason: `ffmpeg is not runnable and ${needing} DASH channel(s) need the compatibility engine`,
  };
}

/** The full build's `/readyz` check over the live catalog and sessions (`-version` cached 10 s). */
export function dashReadiness<C extends ReadinessChannel & { readonly engine: string }>(o: {
  channels: () => readonly C[];
  sessionEngine: (channelId: string) => EngineName | undefined;
  ffmpegPath: string;
}): () => Promise<Readiness> {
  const engineFor = (c: C): EngineName | undefined =>
    (c.fallback_sources?.length ?? 0) > 0
      ? "native"
      : c.engine === "ffmpeg" || c.engine === "native"
        ? c.engine
        : o.sessionEngine(c.id);
  return () => readiness(o.channels(), engineFor, () => checkFfmpeg(o.ffmpegPath));
}
