import type { Context } from "hono";
import { type Env, type Handler, Hono } from "hono";
import { matchedRoutes } from "hono/route";
import type { GenericSchema } from "valibot";
import type { ErrorCode } from "../base/errors.js";
import type { GatewayConfig } from "../config/load.js";

/**
 * Routes declared once, next to their handlers. A route family is a hono sub-app
 * mounted at its base path; each of its routes says its method, path, credential,
 * API-token scope, summary, request body schema, answers and errors. The route
 * table a build serves is read back from the routes its app registered
 * ({@link routeTableOf}): the credential gate, the API-token registry and the
 * OpenAPI document are derived from it, and a route registered without a
 * declaration stops the boot.
 */

export type RouteMethod = "GET" | "POST" | "PUT" | "DELETE";

/** The extension switches that add routes (extensions.md; config `extensions`). */
export type RouteExtension = keyof GatewayConfig["extensions"];

/**
 * Who may call a route. Each layer names its own credential kinds (core: `public`;
 * playback: `playlist`, `play`; the admin API: `reader`, `admin`, `session`,
 * `playback_key`) and the gate of that layer reads them.
 */
export interface RouteAccess {
  readonly credential: string;
  /** Scope an API token needs; null for routes outside the token registry. */
  readonly scope: string | null;
}

/** No credential (spec "Public"). */
export const PUBLIC: RouteAccess = Object.freeze({ credential: "public", scope: null });

export interface RouteQueryParameter {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the value. */
  readonly schema: object;
}

/** One route as its family declares it. */
export interface RouteDeclaration {
  readonly method: RouteMethod;
  /** Under the family's base, hono form: `/` is the base itself, `/:id`, `/*`. */
  readonly path: string;
  readonly access: RouteAccess;
  readonly summary: string;
  /** OpenAPI tag. */
  readonly tag: string;
  /** The valibot schema the handler validates its JSON body with. */
  readonly body?: GenericSchema;
  readonly query?: readonly RouteQueryParameter[];
  /** `If-Match` (spec "Concurrency headers"). */
  readonly ifMatch?: "required" | "optional";
  /**
   * Success status, what it carries in prose, and its answer: the valibot schema of a
   * JSON body (the OpenAPI document's response schema, the console's answer type),
   * or the media type of any other body (M3U, XMLTV, images, streams); null for no
   * body. Only a 204 may leave it out (`routeAnswerOf`).
   */
  readonly success: readonly [status: number, description: string, answer?: RouteAnswer];
  /** Error codes the route answers besides its credential gate's. */
  readonly errors?: readonly ErrorCode[];
  /**
   * The body ceiling is `security.max_body_bytes` times this (default 1; `bodyCeiling`),
   * for a route whose bodies are legitimately large (the M3U import).
   */
  readonly bodyLimitScale?: number;
  /** Registered only when this extension is switched on (extensions.md intro). */
  readonly extension?: RouteExtension;
}

/**
 * A JSON answer's valibot schema, the media type of a body that is not JSON, or null
 * for a success without a body other than 204 (HDHomeRun's `lineup.post`).
 */
export type RouteAnswer = GenericSchema | string | null;

/**
 * The answer a route declares: `{schema}` for JSON, `{mediaType}` for any other
 * body, `{}` for a 204. Throws for a route that answers a body and declares
 * neither, so a route cannot answer undocumented JSON (the OpenAPI document and
 * with it the boot stop).
 */
export function routeAnswerOf(r: Pick<RouteDeclaration, "method" | "path" | "success">): {
  schema?: GenericSchema;
  mediaType?: string;
} {
  const [status, , answer] = r.success;
  if (typeof answer === "string") return { mediaType: answer };
  if (answer !== undefined && answer !== null) return { schema: answer };
  if (status === 204 || answer === null) return {};
  throw new Error(`${r.method} ${r.path}: answers ${status} without a schema or media type`);
}

/** A registered route: its declaration under its full path in the table's `{name}` form. */
export type RouteRow = RouteDeclaration;

export interface RouteFamily<
  B extends string = string,
  R extends Record<string, RouteDeclaration> = Record<string, RouteDeclaration>,
> {
  /** Where the family's sub-app is mounted (`app.route(family.base, …)`). */
  readonly base: B;
  readonly routes: R;
}

/**
 * Declares a route family: its base path and its routes, keyed by the name its
 * handler is given under in {@link routesOf}.
 *
 * @example
 * export const itemRoutes = defineRoutes("/v1/items", {
 *   list: { method: "GET", path: "/", access: PUBLIC, summary: "List items", tag: "items", success: [200, "`{items}`", v.strictObject({ items: v.array(item) })] },
 * });
 */
export function defineRoutes<
  const B extends string,
  const R extends Record<string, RouteDeclaration>,
>(base: B, routes: R): RouteFamily<B, R> {
  return Object.freeze({ base, routes: Object.freeze(routes) });
}

/** The handler of a declared route, its path parameters typed from base and path. */
export type RouteHandler<E extends Env, P extends string> = Handler<E, P>;

export type RouteHandlers<E extends Env, B extends string, R> = {
  readonly [K in keyof R]: R[K] extends { readonly path: infer P extends string }
    ? RouteHandler<E, `${B}${P}`>
    : never;
};

/**
 * Which extension switches are on (the config's `extensions` section): a boolean, or a
 * section with `enabled` (`extensions.hdhomerun`).
 */
export type RouteSwitches = {
  readonly [K in RouteExtension]?: boolean | { readonly enabled: boolean };
};

/** True when the extension is switched on. */
export function extensionOn(switches: RouteSwitches, name: RouteExtension): boolean {
  const value = switches[name];
  return value === true || (typeof value === "object" && value.enabled);
}

/** Declaration of each registered handler (the wrapper {@link routesOf} registers). */
const DECLARED = new WeakMap<object, RouteRow>();

/**
 * The family's sub-app: one handler per declared route, registered in declaration
 * order (so static paths declared before `/:id` win), a missing or extra handler
 * a type error. A route of an extension switched off is not registered at all.
 *
 * @example
 * app.route(itemRoutes.base, routesOf(itemRoutes, { list: (c) => c.json({ items: [] }) }));
 */
export function routesOf<
  E extends Env,
  const B extends string,
  R extends Record<string, RouteDeclaration>,
>(
  family: RouteFamily<B, R>,
  handlers: RouteHandlers<E, B, R>,
  switches: RouteSwitches = {},
): Hono<E> {
  const app = new Hono<E>();
  for (const [key, decl] of Object.entries(family.routes)) {
    if (decl.extension !== undefined && !extensionOn(switches, decl.extension)) continue;
    const handler = handlers[key as keyof R] as unknown as Handler<E>;
    // A wrapper of its own: one function could serve two declarations.
    const declared: Handler<E> = (c, next) => handler(c, next);
    DECLARED.set(
      declared,
      Object.freeze({ ...decl, path: normalizeRoutePath(joinRoutePath(family.base, decl.path)) }),
    );
    app.on(decl.method, decl.path, declared);
  }
  return app;
}

/** Every route of the family (all extensions), under full paths in `{name}` form. */
export function familyRows(family: RouteFamily, switches?: RouteSwitches): RouteRow[] {
  return Object.values(family.routes)
    .filter(
      (d) =>
        switches === undefined || d.extension === undefined || extensionOn(switches, d.extension),
    )
    .map((d) => ({ ...d, path: normalizeRoutePath(joinRoutePath(family.base, d.path)) }));
}

/** `base` + `path` as hono mounts them (`/` under a base is the base itself). */
function joinRoutePath(base: string, path: string): string {
  if (path === "/") return base === "" ? "/" : base;
  return `${base.replace(/\/$/, "")}${path}`;
}

/**
 * The route table of a composed app: every handler route it registered, with its
 * declaration. Throws (the boot stops) when a route was registered without one, or
 * a family was mounted somewhere other than its declared base: the credential gate
 * and the OpenAPI document know only declared routes.
 */
export function routeTableOf(app: {
  readonly routes: readonly { method: string; path: string; handler: object }[];
}): readonly RouteRow[] {
  const rows = new Map<string, RouteRow>();
  const problems: string[] = [];
  for (const r of app.routes) {
    if (r.method === "ALL") continue;
    const path = normalizeRoutePath(r.path);
    const row = DECLARED.get(r.handler);
    if (row === undefined) problems.push(`${r.method} ${path} has no route declaration`);
    else if (row.path !== path || row.method !== r.method)
      problems.push(`${r.method} ${path} is declared as ${row.method} ${row.path}`);
    else rows.set(`${r.method} ${path}`, row);
  }
  if (problems.length > 0) throw new Error(`route table: ${problems.join("; ")}`);
  return Object.freeze([...rows.values()]);
}

/**
 * The declaration of the route that answers this request (hono's own match, so
 * the first declared handler in registration order); undefined when no declared
 * route matches. Middleware reads it before the handler runs.
 */
export function routeOf(c: Context): RouteRow | undefined {
  for (const r of matchedRoutes(c)) {
    const row = DECLARED.get(r.handler);
    if (row !== undefined) return row;
  }
  return undefined;
}

/** `/v1/items/:id` (hono) or `{id}` → the table's `{id}` form. */
export function normalizeRoutePath(path: string): string {
  return path
    .replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")
    .replace(/\/+$/, "")
    .replace(/^$/, "/");
}

export interface RouteMatcher<R extends { readonly method: string; readonly path: string }> {
  /** The row of a request, preferring static segments over placeholders. */
  match(method: string, path: string): R | undefined;
}

/**
 * Compiles rows in the table's `{name}` form into a matcher outside hono (tests, tools);
 * HEAD matches GET rows. The running gateway matches with hono's router ({@link routeOf}).
 */
export function createRouteMatcher<R extends { readonly method: string; readonly path: string }>(
  table: readonly R[],
): RouteMatcher<R> {
  // Bucketed by method and first path segment (no table path starts with a
  // placeholder), so a request tests a handful of patterns, not all of them.
  const buckets = new Map<string, { row: R; re: RegExp; placeholders: number }[]>();
  for (const row of table) {
    const pattern = row.path
      .split("/")
      .map((seg) =>
        seg === "*"
          ? ".*"
          : /^\{.+\}$/.test(seg)
            ? "[^/]+"
            : seg.replace(/[.*+?^$()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    const placeholders = (row.path.match(/\{/g) ?? []).length + (row.path.endsWith("*") ? 10 : 0);
    const key = `${row.method} ${firstSegment(row.path)}`;
    const list = buckets.get(key) ?? [];
    list.push({ row, re: new RegExp(`^${pattern}$`), placeholders });
    buckets.set(key, list);
  }
  for (const list of buckets.values()) list.sort((a, b) => a.placeholders - b.placeholders);
  return {
    match(method, path) {
      const list = buckets.get(`${method === "HEAD" ? "GET" : method} ${firstSegment(path)}`);
      if (list === undefined) return undefined;
      for (const c of list) if (c.re.test(path)) return c.row;
      return undefined;
    },
  };
}

/** `v1` of `/v1/me`, `` of `/`. */
function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}
