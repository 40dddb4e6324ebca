import {
  type Channel,
  type ChannelCatalog,
  type FallbackSource,
  resolveChannelSource,
} from "@svc/core/catalog";
import { channelRequestHeaders } from "../../hls/upstream-headers.js";

/** One source of a channel as an engine connects to it. */
export interface ResolvedSource {
  /** 0 = the primary source, 1… = `fallback_sources[index - 1]`. */
  readonly index: number;
  readonly url: string;
  /** Request headers (its own headers and user agent, lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** The one origin its sensitive headers may go to (docs/playback.md "Channel secrets"). */
  readonly credentialOrigin: string;
}

/**
 * The primary source and the fallback sources of a channel, in the order they are tried
 * (extensions "Fallback sources and the slate"). A fallback whose upstream is unknown is
 * left out (the admin API and the config loader refuse one; a deleted upstream may still
 * leave one behind); the primary's absence is the caller's error.
 */
export function resolveChannelSources(
  channel: Channel,
  catalog: Pick<ChannelCatalog, "upstream">,
): ResolvedSource[] {
  const out: ResolvedSource[] = [];
  const add = (index: number, src: FallbackSource) => {
    const url = resolveChannelSource(src, catalog);
    if (url === undefined) return;
    out.push({
      index,
      url,
      headers: channelRequestHeaders({
        ...channel,
        headers: src.headers,
        user_agent: src.user_agent,
      }),
      credentialOrigin: new URL(url).origin,
    });
  };
  add(0, channel);
  for (const [i, f] of channel.fallback_sources.entries()) add(i + 1, f);
  return out;
}
