import {
  checkProxyUrl,
  compileRouting,
  DIRECT,
  type Egress,
  type EgressFailure,
  type RouteRequest,
} from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import * as v from "valibot";
import { routingOf, type StoredEgressDocument } from "./egress-document.js";
import { assertValidDocument, profileFrom } from "./write.js";
import { documentBody } from "./write-bodies.js";

/**
 * The built-in public HTTPS probe (`target: "public"`): a CDN object of 512 KiB, enough for a
 * throughput verdict. It is contacted only when an administrator runs a test without a URL.
 */
export const PUBLIC_PROBE_URL = "https://speed.cloudflare.com/__down?bytes=524288";
/** The whole test, redirects and sample included. */
export const TEST_DEADLINE_MS = 15_000;
/** The sample: at most this many bytes, read for at most {@link SAMPLE_WINDOW_MS}. */
export const SAMPLE_MAX_BYTES = 512 * 1024;
export const SAMPLE_WINDOW_MS = 4_000;
/** A throughput figure is given, and judged, only from a sample at least this large. */
export const SAMPLE_VERDICT_BYTES = 64 * 1024;

export const testBody = v.strictObject({
  target: v.optional(
    v.picklist(["public", "source", "custom"], 'must be "public", "source" or "custom"'),
  ),
  url: v.optional(v.pipe(v.string(), v.maxLength(8192))),
  channel_id: v.optional(v.string()),
  proxy_id: v.optional(v.string()),
  proxy_url: v.optional(v.pipe(v.string(), v.maxLength(2048))),
  draft: v.optional(documentBody),
});
export type TestBody = v.InferOutput<typeof testBody>;

export type TestOutcome =
  | "success"
  | "slow"
  | "blocked"
  | "dns"
  | "timeout"
  | "tls"
  | "proxy"
  | "proxy_auth"
  | "http_error"
  | "network";

export interface TestDeps {
  readonly egress: Egress;
  readonly stored: StoredEgressDocument;
  readonly minKbps: number;
  /** The channel's binding and source, for `channel_id` (undefined: no such channel). */
  channel(id: string): { source: string | undefined } | undefined;
}

/**
 * `POST /v1/admin/egress/test` (spec "Egress"): one GET through the route the body names, a
 * sample of the answer, and a verdict. Connectivity failures are results (200), never errors;
 * a malformed body, an unknown channel or profile, or a non-http(s) URL are 400.
 */
export async function runConnectionTest(deps: TestDeps, body: TestBody) {
  const exclusive = [body.proxy_id, body.proxy_url, body.draft].filter((x) => x !== undefined);
  if (exclusive.length > 1)
    throw new GatewayError("invalid_request", "give at most one of proxy_id, proxy_url and draft");
  if (body.channel_id !== undefined && deps.channel(body.channel_id) === undefined)
    throw new GatewayError("invalid_request", `channel_id: unknown channel "${body.channel_id}"`);
  const { target, url } = destination(deps, body);
  const route = routeOf(deps, body);
  const policy = body.draft?.playlist_policy ?? deps.stored.playlist_policy;
  const parsed = new URL(url);
  const choice = deps.egress.routes.choose(parsed, {
    ...route,
    ...(body.channel_id ? { channelId: body.channel_id } : {}),
  });
  const viaProxy = choice.ok && choice.proxyId !== DIRECT;
  const common = {
    target,
    proxy_id: choice.proxyId,
    via_proxy: viaProxy,
    reason: choice.reason ?? "default",
    rewrite: policy === "rewrite" || (policy === "auto" && viaProxy),
  };

  const t0 = performance.now();
  const signal = AbortSignal.timeout(TEST_DEADLINE_MS);
  const res = await deps.egress.request(url, {
    ...(body.channel_id ? { channelId: body.channel_id } : {}),
    route,
    signal,
  });
  if (!res.ok) {
    const outcome = failureOutcome(res, signal);
    return {
      ok: false,
      reachable: false,
      outcome,
      status: null,
      ...common,
      final_url: reportUrl(url),
      dur_ms: elapsed(t0),
      error:
        outcome === "timeout" && signal.aborted
          ? `no answer within ${TEST_DEADLINE_MS} ms`
          : res.message,
    };
  }
  const ttfb = elapsed(t0);
  const sample = await readSample(res.body);
  const status = res.status;
  const kbps =
    sample.bytes >= SAMPLE_VERDICT_BYTES && sample.ms > 0
      ? Math.round((sample.bytes * 8) / sample.ms)
      : undefined;
  const httpError = status >= 400;
  const slow = !httpError && kbps !== undefined && kbps < deps.minKbps;
  const outcome: TestOutcome = httpError ? "http_error" : slow ? "slow" : "success";
  return {
    ok: outcome === "success",
    reachable: true,
    outcome,
    status,
    ...common,
    final_url: reportUrl(res.url),
    ttfb_ms: ttfb,
    sample_bytes: sample.bytes,
    ...(kbps === undefined ? {} : { throughput_kbps: kbps }),
    dur_ms: elapsed(t0),
    ...(httpError
      ? { error: `the destination answered HTTP ${status}` }
      : slow
        ? { error: `throughput ${kbps} kbps is below egress.min_test_kbps (${deps.minKbps})` }
        : {}),
  };
}

/** Spec: `public` (or neither target nor url) is the built-in probe; `source`/`custom` need `url`. */
function destination(
  deps: TestDeps,
  body: TestBody,
): { target: "public" | "source" | "custom"; url: string } {
  let target = body.target ?? (body.url === undefined ? "public" : "custom");
  let url = body.url;
  if (target === "public") url = body.url ?? PUBLIC_PROBE_URL;
  if (target === "source" && url === undefined && body.channel_id !== undefined)
    url = deps.channel(body.channel_id)?.source;
  if (url === undefined)
    throw new GatewayError("invalid_request", `url: required for target "${target}"`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new GatewayError("invalid_request", "url: must be an absolute http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new GatewayError("invalid_request", "url: must be an absolute http(s) URL");
  if (u.username !== "" || u.password !== "")
    throw new GatewayError("invalid_request", "url: must not carry credentials");
  target = target === "public" && body.url !== undefined ? "custom" : target;
  return { target, url: u.href };
}

function routeOf(deps: TestDeps, body: TestBody): Omit<RouteRequest, "channelId"> {
  if (body.proxy_url !== undefined) {
    const checked = checkProxyUrl(body.proxy_url);
    if (!checked.ok) throw new GatewayError("invalid_request", `proxy_url: ${checked.message}`);
    return { profile: { id: "unsaved", name: "", url: body.proxy_url, disabled: false } };
  }
  if (body.proxy_id !== undefined) {
    if (body.proxy_id === DIRECT) return { binding: { mode: "direct" } };
    const profile = deps.stored.proxies.find((p) => p.id === body.proxy_id);
    if (profile === undefined)
      throw new GatewayError(
        "invalid_request",
        `proxy_id: unknown proxy profile "${body.proxy_id}"`,
      );
    return { profile: { id: profile.id, name: profile.name, url: profile.url, disabled: false } };
  }
  if (body.draft !== undefined) {
    const stored = new Map(deps.stored.proxies.map((p) => [p.id, p]));
    const doc: StoredEgressDocument = {
      default: body.draft.default,
      playlist_policy: body.draft.playlist_policy,
      docker_proxy_host: body.draft.docker_proxy_host,
      proxies: body.draft.proxies.map((p) => profileFrom(p, stored.get(p.id))),
      rules: body.draft.rules.map((r, i) => ({ ...r, id: r.id ?? `draft-${i}` })),
    };
    assertValidDocument(doc);
    return { routing: compileRouting(routingOf(doc)) };
  }
  return {};
}

function failureOutcome(f: EgressFailure, deadline: AbortSignal): TestOutcome {
  if (f.kind === "refused") return "blocked";
  if (f.kind === "timeout" || (f.kind === "aborted" && deadline.aborted)) return "timeout";
  return f.cause ?? "network";
}

/** Reads up to {@link SAMPLE_MAX_BYTES} for up to {@link SAMPLE_WINDOW_MS}, then drops the rest. */
async function readSample(
  body: AsyncIterable<unknown> & { destroy(): void },
): Promise<{ bytes: number; ms: number }> {
  const start = performance.now();
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const window = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SAMPLE_WINDOW_MS);
  });
  const read = (async () => {
    try {
      for await (const chunk of body) {
        bytes += (chunk as Buffer).length;
        if (bytes >= SAMPLE_MAX_BYTES || performance.now() - start >= SAMPLE_WINDOW_MS) break;
      }
    } catch {
      // A body cut short still gives the sample read so far.
    }
  })();
  await Promise.race([read, window]);
  clearTimeout(timer);
  const ms = performance.now() - start;
  body.destroy();
  return { bytes, ms };
}

/** Spec: returned URLs carry no credentials, query string or fragment. */
function reportUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function elapsed(t0: number): number {
  return Math.round(performance.now() - t0);
}
