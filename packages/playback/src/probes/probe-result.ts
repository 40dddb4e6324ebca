import type { NativeInspection } from "../dash/inspection/inspection-model.js";
import { urlForReport } from "../dash/inspection/url-for-report.js";
import type { StreamFormat } from "../ts/stream-format.js";

/**
 * Result shapes of `POST /v1/admin/channels/{id}/probe` and `POST /v1/admin/source-probes`
 * (spec "Sessions, probes, previews"). Builders only: the route does the fetch through the
 * egress guard and hands the facts in.
 */

/** Non-DASH probe: what the source answered. */
export interface HttpProbeResult {
  readonly ok: boolean;
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  readonly content_type: string;
  /** URL after redirects, reduced by {@link urlForReport}. */
  readonly final_url: string;
  readonly dur_ms: number;
  /**
   * What the first bytes are (extensions "MPEG-TS ingress"): on a `ts` channel's probe
   * always when the source answered 2xx, on another's only when they are MPEG-TS.
   */
  readonly format?: StreamFormat;
  /** Why it failed, when no HTTP response arrived (timeout, DNS, refused); never a secret. */
  readonly error?: string;
}

/** DASH probe: the native-engine inspection of the MPD. */
export interface DashProbeResult {
  readonly ok: boolean;
  readonly dur_ms: number;
  /** null when the MPD could not be fetched. */
  readonly inspection: NativeInspection | null;
  readonly error?: string;
}

/** Source probes (draft channels) also say which egress route was used. */
export type SourceProbeResult = (HttpProbeResult & { readonly proxy_id: string }) | DashProbeResult;

/** Integer milliseconds since `startedAt` (a `performance.now()` reading). */
export function elapsedMs(startedAt: number, now: number = performance.now()): number {
  return Math.max(0, Math.round(now - startedAt));
}

/**
 * A non-DASH probe that got an HTTP response; `ok` is a 2xx status.
 * @example httpProbeResult({ status: 200, contentType: "application/vnd.apple.mpegurl", finalUrl: res.url, durMs: elapsedMs(t0) })
 */
export function httpProbeResult(facts: {
  status: number;
  contentType: string | null;
  finalUrl: string;
  durMs: number;
}): HttpProbeResult {
  return {
    ok: facts.status >= 200 && facts.status < 300,
    status: facts.status,
    content_type: facts.contentType ?? "",
    final_url: urlForReport(facts.finalUrl),
    dur_ms: Math.round(facts.durMs),
  };
}

/** A non-DASH probe that got no response at all. `reason` must already be free of secrets. */
export function httpProbeFailure(facts: {
  url: string;
  durMs: number;
  reason: string;
}): HttpProbeResult {
  return {
    ok: false,
    status: 0,
    content_type: "",
    final_url: urlForReport(facts.url),
    dur_ms: Math.round(facts.durMs),
    error: facts.reason,
  };
}

/** The source-probe variant of a non-DASH result: adds the route used (`direct` or a profile id). */
export function withProxyId(
  result: HttpProbeResult,
  proxyId: string,
): HttpProbeResult & { proxy_id: string } {
  return { ...result, proxy_id: proxyId };
}

/** A DASH probe whose MPD was fetched (parsed or not: a parse failure is in the inspection). */
export function dashProbeResult(facts: {
  durMs: number;
  inspection: NativeInspection;
}): DashProbeResult {
  return { ok: true, dur_ms: Math.round(facts.durMs), inspection: facts.inspection };
}

/** A DASH probe whose MPD could not be fetched (non-2xx, network error). */
export function dashProbeFailure(facts: { durMs: number; reason: string }): DashProbeResult {
  return { ok: false, dur_ms: Math.round(facts.durMs), inspection: null, error: facts.reason };
}

/**
 * Spec: "DASH without global media keys configured: 400". The admin route answers
 * `invalid_request` with this message when `media.keys` is empty.
 */
export function dashProbeKeysProblem(
  globalKeys: Readonly<Record<string, string>>,
): string | undefined {
  return Object.keys(globalKeys).length === 0
    ? "DASH probes need global media keys: set media.keys in the config"
    : undefined;
}
