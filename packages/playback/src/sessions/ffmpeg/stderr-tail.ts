/** Default size of the kept stderr tail: the runtime session's `last_error`. */
export const STDERR_TAIL_CHARS = 4096;
/** A line longer than this is dropped whole rather than cut (a cut could halve a secret). */
const MAX_LINE_CHARS = 2048;

/**
 * The last few KiB of a child's stderr, line by line, each complete line scrubbed before it
 * is stored. Memory is bounded: the kept lines by `maxChars`, the pending partial line by
 * {@link MAX_LINE_CHARS}. Never holds an unscrubbed line except the pending partial one.
 */
export class StderrTail {
  readonly #scrub: (line: string) => string;
  readonly #maxChars: number;
  readonly #lines: string[] = [];
  #chars = 0;
  #partial = "";
  #dropping = false;

  constructor(scrub: (line: string) => string, maxChars = STDERR_TAIL_CHARS) {
    this.#scrub = scrub;
    this.#maxChars = maxChars;
  }

  /** Feed decoded stderr text; CR, LF and CRLF end a line. */
  push(text: string): void {
    const pieces = text.split(/\r\n|\n|\r/);
    const last = pieces.pop() ?? "";
    for (const piece of pieces) {
      if (this.#dropping) {
        this.#dropping = false;
        this.#partial = "";
        this.#store("[a stderr line longer than 2048 characters was dropped]");
        continue;
      }
      this.#store(this.#partial + piece);
      this.#partial = "";
    }
    if (this.#dropping) return;
    this.#partial += last;
    if (this.#partial.length > MAX_LINE_CHARS) {
      this.#partial = "";
      this.#dropping = true;
    }
  }

  /** Add a line of our own (restarts, stalls), scrubbed like the rest. */
  note(line: string): void {
    this.#store(line);
  }

  /** Flush a pending partial line (the child has exited). */
  end(): void {
    if (this.#partial !== "" && !this.#dropping) this.#store(this.#partial);
    this.#partial = "";
    this.#dropping = false;
  }

  /** The kept tail, newline-joined, or null when nothing was written. */
  text(): string | null {
    return this.#lines.length === 0 ? null : this.#lines.join("\n");
  }

  #store(raw: string): void {
    const line = this.#scrub(raw).trimEnd();
    if (line === "") return;
    this.#lines.push(line);
    // #chars counts a newline after every line; the joined text is one shorter.
    this.#chars += line.length + 1;
    while (this.#chars - 1 > this.#maxChars && this.#lines.length > 1) {
      this.#chars -= (this.#lines.shift()?.length ?? 0) + 1;
    }
    if (this.#chars - 1 > this.#maxChars) {
      // A single (already scrubbed) line larger than the tail keeps its end, where ffmpeg puts the cause.
      const only = this.#lines[0] ?? "";
      this.#lines[0] = only.slice(only.length - this.#maxChars);
      this.#chars = this.#maxChars + 1;
    }
  }
}
