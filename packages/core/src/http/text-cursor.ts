/**
 * A read position in a text that arrives in pieces (a body decoded chunk by chunk): `buf`
 * holds what is left of the pieces read so far, from the consumed part's end on, so a parser
 * over it keeps a window of about two pieces, never the whole text.
 */
export class TextCursor {
  buf = "";
  i = 0;
  private ended = false;

  constructor(private readonly pieces: Iterator<string>) {}

  /**
   * Reads pieces until `n` characters from `i` are in `buf`; false when the text ends
   * sooner. Dropping the consumed part copies only what is left of the window.
   */
  need(n: number): boolean {
    while (this.buf.length - this.i < n) {
      if (this.ended) return false;
      const next = this.pieces.next();
      if (next.done === true) {
        this.ended = true;
        return false;
      }
      this.buf = this.buf.slice(this.i) + next.value;
      this.i = 0;
    }
    return true;
  }

  /** The UTF-16 code unit at `i`, NaN at the end of `buf`. */
  code(): number {
    return this.buf.charCodeAt(this.i);
  }
}
