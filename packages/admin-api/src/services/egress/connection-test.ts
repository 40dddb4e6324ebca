import {
  checkProxyUrl,
  compileRouting,
  DIRECT,
  type Egress,
  type EgressFailure,
  isRefusal,
  type ProxyProfile,
  type RouteRequest,
} from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import * as v from "valibot";
import { routingOf, type StoredEgressDocument } from "./egress-document.js";
import { assertValidDocument, mergeProfiles } from "./write.js";
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
 * a malformed body, an unknown channel or profile, or a non-http(s) URL are 400; a refused
 * destination, redirect hop or unsaved proxy address is 403 `forbidden`.
 */
export async function runConnectionTest(deps: TestDeps, body: TestBody) {
  const exclusive = [body.proxy_id, body.proxy_url, body.draft].filter((x) => x !== undefined);
  if (exclusive.length > 1)
    throw new GatewayError("invalid_request", "give at most one of proxy_id, proxy_url and draft");
  if (body.channel_id !== undefined && deps.channel(body.channel_id) === undefined)
    throw new GatewayError("invalid_request", `channel_id: unknown channel "${body.channel_id}"`);
  const { target, url } = destination(deps, body);
  const route = await routeOf(deps, body);
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
    // Spec "Egress": the destination must be a public address, and target safety has its
    // own status: a refusal (of the URL or of any redirect hop, in whatever spelling) is
    // 403, never a 200 carrying `blocked` (issue 30 item 4). Nothing refused was dialled.
    if (res.kind === "refused")
      throw new GatewayError(
        "forbidden",
        `url: the destination or a redirect from it is refused (${res.message}): it must be a public address or be listed in security.allowed_hosts`,
      );
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

/**
 * The route the body names. Unsaved proxies (`proxy_url`, and draft profiles that differ from
 * the stored ones) pass the address guard of targets before anything is dialled (issue 30
 * item 3): a saved profile's address was chosen by a writer of the configuration, but an
 * unsaved one would let a `refresh` token make the gateway dial any internal address.
 */
async function routeOf(deps: TestDeps, body: TestBody): Promise<Omit<RouteRequest, "channelId">> {
  if (body.proxy_url !== undefined) {
    const checked = checkProxyUrl(body.proxy_url);
    if (!checked.ok) throw new GatewayError("invalid_request", `proxy_url: ${checked.message}`);
    const profile = { id: "unsaved", name: "", url: body.proxy_url, disabled: false };
    return { profile: await guardedProxy(deps, profile, "proxy_url") };
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
    const saved = new Set(deps.stored.proxies.map((p) => `${p.id}\n${p.url}`));
    const doc: StoredEgressDocument = {
      default: body.draft.default,
      playlist_policy: body.draft.playlist_policy,
      docker_proxy_host: body.draft.docker_proxy_host,
      proxies: mergeProfiles(body.draft, deps.stored),
      rules: body.draft.rules.map((r, i) => ({ ...r, id: r.id ?? `draft-${i}` })),
    };
    try {
      assertValidDocument(doc);
    } catch (err) {
      // Name the field as the body has it (`draft.proxies[0].url`).
      if (err instanceof GatewayError) throw new GatewayError(err.code, `draft.${err.message}`);
      throw err;
    }
    const proxies = await Promise.all(
      doc.proxies.map(async (p, i) =>
        saved.has(`${p.id}\n${p.url}`) ? p : await guardedProxy(deps, p, `draft.proxies[${i}].url`),
      ),
    );
    return { routing: compileRouting(routingOf({ ...doc, proxies })) };
  }
  return {};
}

async function guardedProxy<P extends ProxyProfile>(
  deps: TestDeps,
  profile: P,
  field: string,
): Promise<P> {
  try {
    return { ...profile, url: (await deps.egress.routes.checkProxy(profile)).url };
  } catch (err) {
    if (isRefusal(err))
      throw new GatewayError(
        "forbidden",
        `${field}: the proxy address is refused (${err.reason}): an unsaved proxy must be a public address or be listed in security.allowed_hosts`,
      );
    throw err;
  }
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
