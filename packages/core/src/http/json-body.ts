import type { Context } from "hono";
import * as v from "valibot";
import { GatewayError } from "../base/errors.js";
import { runInSlices } from "../base/time-slices.js";
import { problemsFromIssues } from "../config/problems.js";
import { readRequestBody } from "./read-body.js";
import { parseStrictJson, type StrictJson } from "./strict-json.js";
import { strictJsonSteps, TextPieces } from "./strict-json-steps.js";
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
  const body = await readBody(c, NO_PIECES);
  return validate(schema, body);
}

/**
 * {@link readJsonBody} for a body with one large text member (the M3U import's `content`):
 * that member, a string as the schema says, comes back as the {@link TextPieces} it was
 * decoded in, never joined into one string (issue 30 item 1: the join of a 32 MiB playlist
 * held the event loop for 0.1-0.15 s). The schema checks it as a string.
 *
 * @example
 * const body = await readJsonBodyWithPieces(c, m3uImportBody, "content");
 * for (const piece of body.content.pieces) …
 */
export async function readJsonBodyWithPieces<
  S extends v.GenericSchema,
  K extends string,
  E extends AppEnv = AppEnv,
>(
  c: Context<E>,
  schema: S,
  member: K,
): Promise<Omit<v.InferOutput<S>, K> & { readonly [P in K]: TextPieces }> {
  const body = await readBody(c, new Set([member]));
  // A small body was parsed whole: its member is one piece.
  const text = body[member];
  const pieces =
    text instanceof TextPieces ? text : typeof text === "string" ? new TextPieces([text]) : text;
  // The schema sees a string where the pieces are (its type is checked, its text is not read).
  const output = validate(schema, pieces instanceof TextPieces ? { ...body, [member]: "" } : body);
  return { ...(output as object), [member]: pieces } as Omit<v.InferOutput<S>, K> & {
    readonly [P in K]: TextPieces;
  };
}

const NO_PIECES: ReadonlySet<string> = new Set();

async function readBody<E extends AppEnv>(
  c: Context<E>,
  pieceMembers: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new GatewayError("invalid_request", "request body must be application/json");
  }
  const body = await parseBody(await readRequestBody(c), pieceMembers);
  if (!body.ok) throw new GatewayError("invalid_request", body.message);
  // Every body of the spec is a JSON object. valibot's object schemas also take an array
  // (`typeof [] === "object"`), so `[]` passed as `{}`: a PUT of the egress document with `[]`
  // replaced the whole document with defaults (issue 14 hostile-input suite).
  if (typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
    throw new GatewayError("invalid_request", "request body must be a JSON object");
  }
  return body.value as Record<string, unknown>;
}

function validate<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, value, { abortEarly: false });
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
 * Small bodies as before; a large one (the 32 MiB import) decoded chunk by chunk as the parser
 * reads on, in slices, so no step holds the event loop for long and no copy of the whole text
 * is made (issue 30 item 1).
 */
async function parseBody(
  chunks: readonly Uint8Array[],
  pieceMembers: ReadonlySet<string>,
): Promise<StrictJson> {
  const size = chunks.reduce((n, chunk) => n + chunk.byteLength, 0);
  if (size <= ONE_TURN_BYTES) return parseStrictJson(Buffer.concat(chunks));
  const text = new Utf8Pieces(chunks);
  const parsed = await runInSlices(strictJsonSteps(text, { pieceMembers }));
  // Bytes that are not UTF-8 are named as such, as in one piece, even after a JSON error.
  if (!parsed.ok) await runInSlices(text.rest());
  return text.broken ? { ok: false, message: "request body is not valid UTF-8" } : parsed;
}

/**
 * The chunks decoded one per `next()` (RFC 8259 8.1: UTF-8 only). Bytes that are not UTF-8
 * end the text and set `broken`.
 */
class Utf8Pieces implements Iterator<string> {
  broken = false;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });
  private at = 0;

  constructor(private readonly chunks: readonly Uint8Array[]) {}

  next(): IteratorResult<string> {
    if (this.broken || this.at > this.chunks.length) return { done: true, value: undefined };
    const chunk = this.chunks[this.at++];
    try {
      const text =
        chunk === undefined ? this.utf8.decode() : this.utf8.decode(chunk, { stream: true });
      return { done: false, value: text };
    } catch {
      this.broken = true;
      return { done: true, value: undefined };
    }
  }

  /** Decodes what the parser left unread, a chunk per step, only to check it. */
  *rest(): Generator<void, void> {
    while (this.next().done !== true) yield;
  }
}
