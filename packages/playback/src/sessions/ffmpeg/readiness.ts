import type { Readiness } from "@svc/core/http";
import type { EngineName } from "../../dash/inspection/inspection-model.js";
import { checkFfmpeg, type FfmpegStatus } from "./ffmpeg-check.js";

/** The channel fields readiness looks at. */
export interface ReadinessChannel {
  readonly id: string;
  readonly ingress: "hls" | "dash";
  readonly disabled: boolean;
}

/**
 * Spec `/readyz`: not ready when any enabled DASH channel resolves to the FFmpeg
 * compatibility engine and ffmpeg is not runnable; ready otherwise. `engineFor` says
 * which engine a channel resolves to (the channel's `engine`, or for `auto` its running
 * session's; undefined while unknown). The reason names neither channels nor paths:
 * the endpoint is public.
 * @example readiness(catalog.list(), (c) => engineOf(c), await checkFfmpeg(config.media.ffmpeg_path))
 */
export function readiness<C extends ReadinessChannel>(
  channels: readonly C[],
  engineFor: (channel: C) => EngineName | undefined,
  ffmpeg: FfmpegStatus,
): Readiness {
  if (ffmpeg.ok) return { ready: true };
  const needing = channels.filter(
    (c) => c.ingress === "dash" && !c.disabled && engineFor(c) === "ffmpeg",
  ).length;
  if (needing === 0) return { ready: true };
  return {
    ready: false,
    reason: `ffmpeg is not runnable and ${needing} DASH channel(s) need the compatibility engine`,
  };
}

/**
 * The full build's `/readyz` check over the live catalog and sessions. ffmpeg is only
 * run (`-version`, cached 10 s) when some enabled DASH channel could need it.
 */
export function dashReadiness<C extends ReadinessChannel & { readonly engine: string }>(o: {
  channels: () => readonly C[];
  sessionEngine: (channelId: string) => EngineName | undefined;
  ffmpegPath: string;
}): () => Promise<Readiness> {
  const engineFor = (c: C): EngineName | undefined =>
    c.engine === "ffmpeg" || c.engine === "native" ? c.engine : o.sessionEngine(c.id);
  return async () => {
    const channels = o.channels();
    if (!channels.some((c) => c.ingress === "dash" && !c.disabled && engineFor(c) === "ffmpeg"))
      return { ready: true };
    return readiness(channels, engineFor, await checkFfmpeg(o.ffmpegPath));
  };
}
