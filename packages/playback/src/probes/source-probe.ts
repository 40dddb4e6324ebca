import type { Channel } from "@svc/core/catalog";
import {
  type Egress,
  type EgressFailure,
  type RouteRequest,
  readBodyCapped,
} from "@svc/core/egress";
import { inspectMpdText } from "../dash/inspection/native-inspection.js";
import { channelRequestHeaders } from "../hls/upstream-headers.js";
import { sniffStreamFormat } from "../ts/stream-format.js";
import {
  type DashProbeResult,
  dashProbeFailure,
  dashProbeResult,
  elapsedMs,
  type HttpProbeResult,
  httpProbeFailure,
  httpProbeResult,
} from "./probe-result.js";

/** Whole-probe deadline when the caller gives none (the native packager's MPD load uses the same). */
export const DEFAULT_PROBE_TIMEOUT_MS = 15_000;

export interface SourceProbeOptions {
  /** The gateway's one egress: the SSRF guard. Probes never reach a source any other way. */
  readonly egress: Egress;
  /** `security.max_playlist_bytes`: the most of an MPD that is read. */
  readonly maxBodyBytes: number;
  /** `media.keys`: their KIDs count as configured, beside the channel's own `keys`. */
  readonly globalKeys: Readonly<Record<string, string>>;
  /** Deadline of the whole probe, redirects and MPD body included. */
  readonly timeoutMs?: number;
  /** Route overrides (a draft channel's binding or inline profile). */
  readonly route?: Omit<RouteRequest, "channelId">;
}

/**
 * The outcome of one probe. `refusal` is set (and `result.ok` is false) when the egress guard
 * refused the source or a redirect target: no connection was made to it. The caller decides
 * whether that is a result (a stored channel's probe) or a refused request (a source probe).
 */
export type SourceProbe = (
  | { readonly ingress: "hls"; readonly result: HttpProbeResult; readonly refusal?: string }
  | { readonly ingress: "dash"; readonly result: DashProbeResult; readonly refusal?: string }
) & {
  /** The route the egress chose: `direct` or a proxy profile id. */
  readonly proxyId?: string;
};

/**
 * Probes a channel's source (spec "Sessions, probes, previews") with the channel's headers and
 * user agent, through `egress` only. HLS: status, content type and final URL; the body is
 * discarded unread. DASH: the MPD, read up to `maxBodyBytes`, inspected for the native engine
 * with the channel's keys and `globalKeys`. Never throws for upstream conditions; every `error`
 * string is built here or comes from the egress, so it never carries headers, query strings or
 * body bytes.
 *
 * @example
 * const probe = await probeSource(channel, resolveChannelSource(channel, catalog)!, {
 *   egress, maxBodyBytes: config.security.max_playlist_bytes, globalKeys: config.media.keys,
 * });
 * if (probe.refusal !== undefined) throw new GatewayError("forbidden", probe.refusal);
 */
export async function probeSource(
  channel: Channel,
  sourceUrl: string,
  options: SourceProbeOptions,
): Promise<SourceProbe> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const t0 = performance.now();
  const reasonOf = (f: EgressFailure) =>
    f.kind === "aborted" && signal.aborted ? `probe timed out after ${timeoutMs} ms` : f.message;

  const res = await options.egress.request(sourceUrl, {
    headers: channelRequestHeaders(channel),
    signal,
    // A draft source probe may have no id yet.
    channelId: channel.id === "" ? undefined : channel.id,
    ...(options.route ? { route: options.route } : {}),
  });
  const proxyId = res.proxyId;
  if (!res.ok) {
    const refusal = res.kind === "refused" ? refusalMessage(res.message) : undefined;
    const reason = refusal ?? reasonOf(res);
    const durMs = elapsedMs(t0);
    return channel.ingress === "dash"
      ? { ingress: "dash", result: dashProbeFailure({ durMs, reason }), refusal, proxyId }
      : {
          ingress: "hls",
          result: httpProbeFailure({ url: sourceUrl, durMs, reason }),
          refusal,
          proxyId,
        };
  }

  if (channel.ingress !== "dash") {
    // Extensions "MPEG-TS ingress": the content type is not trusted, the first bytes are.
    // The sniff reads at most 64 KiB and closes the body when it returns (a live TS never
    // ends); any other answer's body is dropped unread.
    const ok2xx = res.status >= 200 && res.status <= 299;
    if (!ok2xx) res.body.dump().catch(() => undefined);
    const format = ok2xx ? await sniffStreamFormat(res.body as AsyncIterable<Buffer>) : undefined;
    const type = res.headers["content-type"];
    const result = httpProbeResult({
      status: res.status,
      contentType: (Array.isArray(type) ? type[0] : type) ?? null,
      finalUrl: res.url,
      durMs: elapsedMs(t0),
    });
    // An HLS channel keeps the specification's shape unless its source is really TS.
    const withFormat =
      format !== undefined && (channel.ingress === "ts" || format === "ts")
        ? { ...result, format }
        : result;
    return { ingress: "hls", proxyId, result: withFormat };
  }

  if (res.status < 200 || res.status > 299) {
    res.body.dump().catch(() => undefined);
    const reason = `upstream answered ${res.status}`;
    return { ingress: "dash", result: dashProbeFailure({ durMs: elapsedMs(t0), reason }) };
  }
  const body = await readBodyCapped(res.body, options.maxBodyBytes, undefined, signal);
  if (!body.ok) {
    const reason =
      body.kind === "too_large"
        ? `the MPD is larger than security.max_playlist_bytes (${options.maxBodyBytes} bytes)`
        : reasonOf(body);
    return { ingress: "dash", result: dashProbeFailure({ durMs: elapsedMs(t0), reason }) };
  }
  const inspection = inspectMpdText(body.bytes, res.url, {
    keyKids: [...Object.keys(channel.keys), ...Object.keys(options.globalKeys)],
    ...(channel.prefer_height !== null ? { preferHeight: channel.prefer_height } : {}),
    preferredAudioLanguages: channel.preferred_audio_languages,
  });
  return { ingress: "dash", result: dashProbeResult({ durMs: elapsedMs(t0), inspection }) };
}

/** The guard's own words (`target address is loopback`) plus the setting that would change it. */
function refusalMessage(guardMessage: string): string {
  return `the egress guard refused the source (${guardMessage}); security.allowed_hosts lists exempted hosts`;
}
