import { ERROR_STATUS, type ErrorCode } from "@svc/core/errors";
import { type RouteRow, routeAnswerOf } from "@svc/core/route-table";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import { fullBuildRoutes } from "./full-build-routes.js";

export { fullBuildRoutes } from "./full-build-routes.js";

/**
 * Error codes the credential gate answers, per credential kind (docs/admin-api.md).
 * A route whose credential is not listed here stops the document (and the boot).
 */
const GATE_ERRORS: Readonly<Record<string, readonly ErrorCode[]>> = {
  public: [],
  // An API token without the row's scope: 403 `missing_scope` (issue 12 item 10).
  reader: ["unauthorized", "forbidden", "missing_scope"],
  admin: ["unauthorized", "forbidden", "missing_scope"],
  session: ["unauthorized", "forbidden", "session_required"],
  playlist: ["unauthorized", "forbidden"],
  play: ["unauthorized", "forbidden"],
  playback_key: ["unauthorized", "forbidden"],
  xtream: ["unauthorized", "forbidden", "too_many_requests"],
};

/** Security requirements (OpenAPI 3.1 lets non-OAuth schemes list role names: our scopes). */
function securityOf(r: RouteRow): Record<string, string[]>[] {
  switch (r.access.credential) {
    case "public":
    case "playback_key":
    case "xtream":
      return [];
    case "session":
      return [{ session: [] }];
    case "playlist":
    case "play":
      // `security.play_require_auth: false` opens these: the empty requirement.
      return [{ session: [] }, { queryToken: [] }, {}];
    default:
      return [{ session: [] }, { apiToken: [r.access.scope ?? "read"] }];
  }
}

/** `{id}` segments as path parameters; the table's `/admin/*` becomes `/admin/{asset}`. */
function openapiPath(path: string): string {
  return path.replace(/\*$/, "{asset}");
}

/** JSON Schema of a request body (what callers may send) or an answer (what they get). */
function jsonSchemaOf(schema: GenericSchema, typeMode: "input" | "output"): object {
  const { $schema: _draft, ...json } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode,
    // Custom checks (v.check) have no JSON Schema form; the server still runs them.
    errorMode: "ignore",
  }) as Record<string, unknown>;
  return json;
}

function responsesOf(r: RouteRow): Record<string, object> {
  const [status, description] = r.success;
  const answer = routeAnswerOf(r);
  const content =
    answer.schema !== undefined
      ? { "application/json": { schema: jsonSchemaOf(answer.schema, "output") } }
      : answer.mediaType !== undefined
        ? { [answer.mediaType]: {} }
        : undefined;
  const responses: Record<string, object> = {
    [String(status)]: content === undefined ? { description } : { description, content },
  };
  const gate = GATE_ERRORS[r.access.credential];
  if (gate === undefined)
    throw new Error(`${r.method} ${r.path}: unknown credential "${r.access.credential}"`);
  const codes = new Set<ErrorCode>([...gate, ...(r.errors ?? []), "internal"]);
  if (r.access.credential !== "public") codes.add("forbidden"); // Host outside public_hosts
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const s = ERROR_STATUS[code];
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  for (const [s, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(s)] = {
      description: `Error: ${list.join(", ")}`,
      "x-error-codes": list,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  if (r.path.endsWith("/live/{file}"))
    responses["410"] = {
      description: "Error: not_found (publication generation gone; Retry-After)",
      "x-error-codes": ["not_found"],
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  return responses;
}

function operationOf(r: RouteRow): object {
  const parameters: object[] = [];
  for (const m of r.path.matchAll(/\{([a-z_]+)\}/g))
    parameters.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
  if (r.path.endsWith("*"))
    parameters.push({ name: "asset", in: "path", required: true, schema: { type: "string" } });
  for (const q of r.query ?? [])
    parameters.push({
      name: q.name,
      in: "query",
      required: false,
      description: q.description,
      schema: q.schema,
    });
  if (r.ifMatch !== undefined)
    parameters.push({
      name: "If-Match",
      in: "header",
      required: r.ifMatch === "required",
      description: 'The revision the caller holds, `"<n>"`; a mismatch is 409 `conflict`',
      schema: { type: "string" },
    });
  const body = r.body === undefined ? undefined : jsonSchemaOf(r.body, "input");
  return {
    operationId: `${r.method.toLowerCase()}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ?? "").toUpperCase())}`,
    summary: r.summary,
    tags: [r.tag],
    security: securityOf(r),
    "x-route-path": r.path,
    "x-credential": r.access.credential,
    "x-required-scope": r.access.scope,
    ...(r.extension === undefined ? {} : { "x-extension": r.extension }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: body } } } }),
    responses: responsesOf(r),
  };
}

/**
 * The OpenAPI 3.1 document of the whole HTTP API from the route declarations:
 * every route (paths, credential, API-token scope), request bodies converted
 * from the same valibot schemas the routes validate with, answers from the
 * schemas (or media types) the routes declare them with, and the closed set of
 * error codes. The running gateway passes the table its app registered
 * (`routeTableOf(app)`); without one, the full build's routes with every
 * extension off (the specification's API).
 *
 * @example
 * const doc = buildOpenApiDocument({ version: "1.0.0" }, routeTableOf(app));
 */
export function buildOpenApiDocument(
  info: { version: string },
  table: readonly RouteRow[] = fullBuildRoutes(),
): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const r of table) {
    const p = openapiPath(r.path);
    paths[p] = { ...(paths[p] ?? {}), [r.method.toLowerCase()]: operationOf(r) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc-gateway HTTP API",
      version: info.version,
      description:
        "Generated at startup from the route declarations: the valibot schemas the routes validate their bodies with and declare their answers with. " +
        "An API token calling a path outside the route table gets 403 `route_not_available`.",
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: {
        session: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "Login session (EdDSA JWT)",
        },
        apiToken: {
          type: "http",
          scheme: "bearer",
          description: "Admin API token `svc_v1_…`; scopes read, write, delete, refresh",
        },
        queryToken: {
          type: "apiKey",
          in: "query",
          name: "token",
          description: "Session or preview JWT for playback",
        },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          additionalProperties: false,
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              additionalProperties: false,
              properties: {
                code: { type: "string", enum: Object.keys(ERROR_STATUS) },
                message: { type: "string" },
              },
            },
          },
        },
      },
    },
  };
}
