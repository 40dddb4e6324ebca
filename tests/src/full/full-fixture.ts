import assert from "node:assert/strict";
import { type GatewayProcess, startGateway } from "../harness/gateway-process.js";
import { login, requestJson } from "../harness/http-client.js";
import { ADMIN_PASSWORD, authSection, VIEWER_PASSWORD } from "../harness/users.js";

/** Two HLS channels on a loopback origin that is never contacted by these suites. */
export const SAMPLE_CHANNELS = [
  {
    id: "news",
    title: "News",
    ingress: "hls",
    source_url: "http://127.0.0.1:9/news/index.m3u8",
    headers: { Authorization: "Bearer upstream-secret", "X-Plain": "visible" },
  },
  {
    id: "sport",
    title: "Sport",
    ingress: "hls",
    upstream: "origin",
    path: "sport/index.m3u8",
    sort_order: 5,
  },
];

export interface FullGateway {
  readonly gw: GatewayProcess;
  readonly base: string;
  /** An admin login session. */
  readonly admin: string;
  /** A viewer session restricted to `news`. */
  viewer(): Promise<string>;
}

/** Starts the full binary with an admin, a viewer limited to `news`, and the sample channels. */
export async function startFull(
  extra: Record<string, unknown> = {},
  options: { dir?: string; env?: Record<string, string> } = {},
): Promise<FullGateway> {
  const gw = await startGateway(
    "full",
    {
      auth: authSection(["news"], { login_rate_per_min: 1000 }),
      upstreams: [{ id: "origin", base_url: "http://127.0.0.1:9/" }],
      channels: SAMPLE_CHANNELS,
      ...extra,
    },
    options,
  );
  const admin = await login(gw.url, "admin", ADMIN_PASSWORD);
  return { gw, base: gw.url, admin, viewer: () => login(gw.url, "viewer", VIEWER_PASSWORD) };
}

/** Creates an API token with `scopes` through the admin session; returns its plaintext and id. */
export async function createApiToken(
  base: string,
  session: string,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ token: string; id: string; revision: number }> {
  const r = await requestJson(`${base}/v1/admin/api-tokens`, {
    token: session,
    body: { name: `t-${scopes.join("-")}`, scopes, ...extra },
  });
  assert.equal(r.status, 201, r.text);
  return { token: r.body.token, id: r.body.credential.id, revision: r.body.credential.revision };
}

/** Asserts the one error shape with the given status and code. */
export function assertError(
  r: { status: number; body: any; text: string },
  status: number,
  code: string,
): void {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(Object.keys(r.body ?? {}), ["error"], r.text);
  assert.deepEqual(Object.keys(r.body.error).sort(), ["code", "message"]);
  assert.equal(r.body.error.code, code, r.text);
  assert.equal(typeof r.body.error.message, "string");
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** `null` or an ISO 8601 UTC second timestamp. */
export function assertTime(value: unknown, nullable = false): void {
  if (nullable && value === null) return;
  assert.equal(typeof value, "string", `expected a timestamp, got ${String(value)}`);
  assert.match(value as string, ISO);
}

/** Keys of an object, sorted, for shape checks. */
export function keysOf(o: unknown): string[] {
  return Object.keys(o as object).sort();
}
