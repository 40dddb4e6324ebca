import { ApiError } from "./api-error.js";
import type { paths } from "./generated/api-paths.js";

/**
 * A small typed layer over the `paths` that openapi-typescript generates from the
 * gateway's OpenAPI document at build time (scripts/generate-api-types.mjs): a
 * path the server no longer has, a path parameter, query parameter, `If-Match`
 * or request body it does not take fails the console's type check.
 */
export type Method = "get" | "post" | "put" | "delete";

type Operation<M extends Method, P> = P extends keyof paths
  ? paths[P] extends { [K in M]: infer O }
    ? O
    : never
  : never;

/** The paths of the document that answer method `M`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

type JsonBody<O> = O extends { requestBody: { content: { "application/json": infer B } } }
  ? B
  : never;

/** The JSON body `M P` takes, as the document's schema (valibot's input type) says. */
export type BodyOf<M extends Method, P extends PathOf<M>> = JsonBody<Operation<M, P>>;

type PathParams<O> = O extends { parameters: { path: infer A } } ? A : never;
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type TakesIfMatch<O> = O extends { parameters: { header?: infer H } }
  ? [NonNullable<H>] extends [never]
    ? false
    : "If-Match" extends keyof NonNullable<H>
      ? true
      : false
  : false;

type Success = 200 | 201 | 202;
type JsonAnswer<O> = O extends { responses: infer R }
  ? {
      [S in keyof R]: S extends Success
        ? R[S] extends { content: { "application/json": infer J } }
          ? J
          : never
        : never;
    }[keyof R]
  : never;

/**
 * What `M P` answers: the JSON schema its route declares (`success` of its
 * declaration), as the generated types say. A route without a JSON answer (204, an
 * M3U file) gives `never`, which a declared `void` accepts.
 */
export type AnswerOf<M extends Method, P extends PathOf<M>> =
  unknown extends JsonAnswer<Operation<M, P>> ? never : JsonAnswer<Operation<M, P>>;

type Options<O> = ([PathParams<O>] extends [never] ? { path?: never } : { path: PathParams<O> }) &
  ([JsonBody<O>] extends [never]
    ? // A route whose body the document does not describe yet (the guide sources).
      { body?: unknown }
    : { body: JsonBody<O> }) &
  (TakesIfMatch<O> extends true
    ? { /** The revision the caller holds (spec "Concurrency headers"). */ ifMatch?: number }
    : { ifMatch?: never }) &
  ([QueryParams<O>] extends [never] ? { query?: never } : { query?: QueryParams<O> });

type OptionsArg<O> = {} extends Options<O> ? [options?: Options<O>] : [options: Options<O>];

const TOKEN_KEY = "svc-console-token";

let token: string | null = sessionStorage.getItem(TOKEN_KEY);
let onUnauthorized: () => void = () => {};

/** The session token the console holds (kept in sessionStorage: gone with the tab). */
export const session = {
  get: () => token,
  set(value: string | null) {
    token = value;
    if (value === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, value);
  },
  /** Called when an authenticated call answers 401 (expired or replaced session). */
  onUnauthorized(fn: () => void) {
    onUnauthorized = fn;
  },
};

interface SendOptions {
  path?: Record<string, string>;
  body?: unknown;
  ifMatch?: number;
  query?: Record<string, string | number | undefined>;
}

function urlOf(template: string, opts: SendOptions): string {
  let url = template.replace(/\{([a-z_]+)\}/g, (_m, name: string) =>
    encodeURIComponent(opts.path?.[name] ?? ""),
  );
  if (opts.query) {
    const q = Object.entries(opts.query)
      .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== "")
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join("&");
    if (q !== "") url += `?${q}`;
  }
  return url;
}

/**
 * Sends one call and answers the raw response; a failure is an {@link ApiError}
 * with the API's `{error: {code, message}}`. The only `fetch` of the console.
 */
export async function send<M extends Method, P extends PathOf<M>>(
  method: M,
  path: P,
  ...[options]: OptionsArg<Operation<M, P>>
): Promise<Response> {
  const opts = (options ?? {}) as SendOptions;
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (opts.ifMatch !== undefined) headers["If-Match"] = `"${opts.ifMatch}"`;
  let res: Response;
  try {
    res = await fetch(urlOf(path, opts), {
      method: method.toUpperCase(),
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError(0, "network", `the gateway did not answer (${(err as Error).message})`);
  }
  if (res.ok) return res;
  let code = "http_error";
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // not the API's error shape: keep the status line
  }
  if (res.status === 401 && token !== null && path !== "/v1/auth/login") onUnauthorized();
  throw new ApiError(res.status, code, message);
}

/** {@link send}, then the JSON answer (nothing on 204). */
export async function request<M extends Method, P extends PathOf<M>>(
  method: M,
  path: P,
  ...options: OptionsArg<Operation<M, P>>
): Promise<AnswerOf<M, P>> {
  const res = await send(method, path, ...options);
  if (res.status === 204) return undefined as AnswerOf<M, P>;
  return (await res.json()) as AnswerOf<M, P>;
}
