import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Characters gathered into one chunk of a piecewise answer. Big enough that a catalog of
 * 40,000 channels is a few hundred chunks (per-chunk stream overhead is nothing), small
 * enough that what is held per answer stays a fraction of a MiB.
 */
const CHUNK_CHARS = 64 * 1024;
/** The longest an answer renders chunks before the event loop gets a turn (`time-slices.ts`). */
const SLICE_MS = 8;

/**
 * The body of an answer rendered piece by piece (a channel list as JSON, a catalog as M3U),
 * for `c.body()`. Building such an answer whole — objects, then one string — cost a
 * 40,000-channel catalog over 400 MiB of RSS (docs/benchmarks.md "Channel lists at catalog scale").
 *
 * An answer that fits in one chunk is returned whole as a string, so small answers keep
 * their `Content-Length` exactly as before. A larger one is a `ReadableStream` rendered one
 * chunk per pull: @hono/node-server reads the next chunk only once the socket has taken the
 * last (`drain`), so an answer holds about one chunk whatever its size, and a client that
 * goes away cancels the stream, which ends `pieces` (its `finally` runs, nothing more is
 * rendered). The bytes are those of `[...pieces].join("")`.
 *
 * @example
 * return c.body(piecewiseBody(listJson(channels)), 200, { "Content-Type": "application/json" });
 */
export function piecewiseBody(
  pieces: Iterator<string>,
  chunkChars = CHUNK_CHARS,
  sliceMs = SLICE_MS,
): string | ReadableStream<Uint8Array> {
  const first = nextChunk(pieces, chunkChars);
  if (first.done) return first.text;
  return chunkStream(pieces, chunkChars, first.text, sliceMs);
}

/**
 * `piecewiseBody` that is a stream whatever the answer's size, for an answer sent chunked
 * even when small (the M3U import answer, issue 30 item 1).
 */
export function piecewiseStream(
  pieces: Iterator<string>,
  chunkChars = CHUNK_CHARS,
  sliceMs = SLICE_MS,
): ReadableStream<Uint8Array> {
  return chunkStream(pieces, chunkChars, undefined, sliceMs);
}

function nextChunk(pieces: Iterator<string>, chunkChars: number): { text: string; done: boolean } {
  let text = "";
  while (text.length < chunkChars) {
    const r = pieces.next();
    if (r.done === true) return { text, done: true };
    text += r.value;
  }
  return { text, done: false };
}

/** The stream of `held` (already rendered), then of `pieces` one chunk per pull. */
function chunkStream(
  pieces: Iterator<string>,
  chunkChars: number,
  held: string | undefined,
  sliceMs: number,
): ReadableStream<Uint8Array> {
  let cancelled = false;
  let turnStart = performance.now();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (held !== undefined) {
          controller.enqueue(Buffer.from(held));
          held = undefined;
          return;
        }
        // A socket that takes each chunk at once (loopback, a fast client) has the server read
        // the next one from its drain handler, in microtasks: without a turn now and then a
        // 24 MB import answer was rendered in one turn of the event loop, over a second of CPU
        // on a loaded machine (issue 30 item 1).
        if (performance.now() - turnStart >= sliceMs) {
          await nextTurn();
          turnStart = performance.now();
          if (cancelled) return;
        }
        const chunk = nextChunk(pieces, chunkChars);
        if (chunk.text !== "") controller.enqueue(Buffer.from(chunk.text));
        if (chunk.done) controller.close();
      },
      cancel() {
        cancelled = true;
        held = undefined;
        pieces.return?.();
      },
    },
    // Nothing is rendered ahead of a read: the reader's pace is the socket's.
    { highWaterMark: 0 },
  );
}
