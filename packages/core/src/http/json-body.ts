import type { Context } from "hono";
import * as v from "valibot";
import { problemsFromIssues } from "../config/problems.js";
import { GatewayError } from "../errors.js";
import { parseStrictJson } from "./strict-json.js";
import type { AppEnv } from "./types.js";

/**
 * Reads a JSON body and validates it with a valibot schema. Malformed JSON,
 * bytes that are not UTF-8, a key given twice (see {@link parseStrictJson}), a
 * wrong content type or a schema failure answer 400 `invalid_request` naming
 * the first offending field.
 */
export async function readJsonBody<S extends v.GenericSchema, E extends AppEnv = AppEnv>(
  c: Context<E>,
  schema: S,
): Promise<v.InferOutput<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new GatewayError("invalid_request", "request body must be application/json");
  }
  const body = parseStrictJson(new Uint8Array(await c.req.arrayBuffer()));
  if (!body.ok) throw new GatewayError("invalid_request", body.message);
  // Every body of the spec is a JSON object. valibot's object schemas also take an array
  // (`typeof [] === "object"`), so `[]` passed as `{}`: a PUT of the egress document with `[]`
  // replaced the whole document with defaults (issue 14 hostile-input suite).
  if (typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
    throw new GatewayError("invalid_request", "request body must be a JSON object");
  }
  const parsed = v.safeParse(schema, body.value, { abortEarly: false });
  if (!parsed.success) {
    const first = problemsFromIssues(parsed.issues)[0];
    const message =
      first === undefined
        ? "invalid body"
        : first.path === ""
          ? first.message
          : `${first.path}: ${first.message}`;
    throw new GatewayError("invalid_request", message);
  }
  return parsed.output;
}
