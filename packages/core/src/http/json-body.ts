import type { Context } from "hono";
import * as v from "valibot";
import { problemsFromIssues } from "../config/problems.js";
import { GatewayError } from "../errors.js";
import { runInSlices } from "../time-slices.js";
import { readRequestBody } from "./read-body.js";
import { parseStrictJson, type StrictJson } from "./strict-json.js";
import { strictJsonSteps } from "./strict-json-steps.js";
import type { AppEnv } from "./types.js";

/** Bodies up to this size are parsed in one turn (a few ms); larger ones in slices. */
const ONE_TURN_BYTES = 262_144;

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
  const body = await parseBody(await readRequestBody(c));
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

/**
 * Small bodies as before; a large one (the 32 MiB import) decoded chunk by chunk and parsed in
 * slices, so it never holds the event loop for long (issue 30 item 1).
 */
async function parseBody(chunks: readonly Uint8Array[]): Promise<StrictJson> {
  const size = chunks.reduce((n, chunk) => n + chunk.byteLength, 0);
  if (size <= ONE_TURN_BYTES) return parseStrictJson(Buffer.concat(chunks));
  const text = await runInSlices(utf8Steps(chunks));
  if (text === undefined) return { ok: false, message: "request body is not valid UTF-8" };
  return runInSlices(strictJsonSteps(text));
}

/** The chunks decoded one per step (RFC 8259 8.1: UTF-8 only); undefined when they are not. */
function* utf8Steps(chunks: readonly Uint8Array[]): Generator<void, string | undefined> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const texts: string[] = [];
  try {
    for (const chunk of chunks) {
      texts.push(utf8.decode(chunk, { stream: true }));
      yield;
    }
    texts.push(utf8.decode());
  } catch {
    return undefined;
  }
  return texts.join("");
}
