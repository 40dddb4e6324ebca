import type { IncomingMessage } from "node:http";

/** The longest an answered request's unread body is still taken in (and dropped). */
const LINGER_MS = 10_000;
/** A client that sends nothing for this long after the answer is cut off sooner. */
const IDLE_MS = 2_000;

/**
 * Takes in and drops what is left of a request body after its answer went out unread (a 413
 * at the ceiling, a 401 before the body): RFC 9112 9.6. Closing at once leaves the rest of the
 * upload in the kernel's receive buffer, and closing a socket with unread data sends a reset,
 * which can destroy the answer before a client that is still uploading has read it. So the
 * connection stays open, discarding, until the client stops or finishes (then it may carry the
 * next request), for at most `LINGER_MS`; nothing of the body is kept.
 */
export function discardUnreadBody(req: IncomingMessage): void {
  // A body reader the route left behind (a web stream over `req`) would queue the rest.
  req.removeAllListeners("data");
  const close = () => req.socket.destroy();
  const idle = setTimeout(close, IDLE_MS);
  const total = setTimeout(close, LINGER_MS);
  idle.unref();
  total.unref();
  const done = () => {
    clearTimeout(idle);
    clearTimeout(total);
  };
  req.on("data", () => idle.refresh());
  req.once("end", done);
  req.once("close", done);
  req.resume();
}
