/** A line over the length limit: only how it starts is kept (the rest is read and dropped). */
export interface LongLine {
  /** The line's first characters after leading white space (up to 16: enough for `#EXTM3U`). */
  readonly head: string;
}

const HEAD_CHARS = 16;
/** CR, LF and CRLF all end a line (files mix them after hand edits). */
const EOL = /\r\n|\r|\n/g;
const NOT_SPACE = /\S/;

/**
 * The lines of a text that comes in pieces (the import's `content` as decoded), without ever
 * joining the pieces: each line as its raw text (without its end), or a {@link LongLine} when
 * it is longer than `maxChars` (nothing past the limit is held, however long it runs). A line
 * and a CRLF may run across pieces. A leading byte order mark is dropped. After each piece
 * comes `undefined`: a point where the reader may pause, so that one line of megabytes never
 * makes one long step. The text after the last line end is the last line ("" when none).
 */
export function* m3uLines(
  pieces: Iterable<string>,
  maxChars: number,
): Generator<string | LongLine | undefined> {
  let line = "";
  /** The line is over the limit: `line` is dropped, `head` kept. */
  let long = false;
  let head = "";
  let first = true;
  let afterCr = false;
  const take = (part: string) => {
    if (!long) {
      line += part;
      if (line.length <= maxChars) return;
      long = true;
      head = line.trimStart().slice(0, HEAD_CHARS);
      line = "";
      return;
    }
    if (head.length >= HEAD_CHARS) return;
    if (head === "") {
      const start = NOT_SPACE.exec(part)?.index;
      if (start !== undefined) head = part.slice(start, start + HEAD_CHARS);
    } else head += part.slice(0, HEAD_CHARS - head.length);
  };
  const end = (): string | LongLine => {
    // A line of nothing but white space is blank, however long.
    const done = !long ? line : head === "" ? "" : { head };
    line = "";
    long = false;
    head = "";
    return done;
  };
  for (let piece of pieces) {
    if (first && piece !== "") {
      first = false;
      // A UTF-8 byte order mark is common in files saved by Windows editors.
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    let pos = 0;
    // A CR that ended the last piece and the LF that starts this one are one line end.
    if (afterCr && piece.length > 0) {
      if (piece.charCodeAt(0) === 0x0a) pos = 1;
      afterCr = false;
    }
    while (pos < piece.length) {
      EOL.lastIndex = pos;
      const m = EOL.exec(piece);
      if (m === null) {
        take(piece.slice(pos));
        break;
      }
      take(piece.slice(pos, m.index));
      yield end();
      pos = m.index + m[0].length;
      if (m[0] === "\r" && pos === piece.length) afterCr = true;
    }
    yield undefined;
  }
  yield end();
}
