import type { IncomingMessage } from "node:http";

/** The longest an answered request's unread body is still taken in (and dropped). */
const LINGER_MS = 10_000;
/** A client that sends nothing for this long after the answer is cut off sooner. */
const IDLE_MS = 2_000;

/**
 * Takes in and drops what is left of a request body after its answer went out unread (a 413
 * at the ceiling, a 401 before the body): RFC 9112 9.6. Closing a socket with unread data in
 * its receive buffer sends a reset, which can destroy the answer before a client that is still
 * uploading has read it (issue 30 item 1: "a 413 the client can read"). So the connection
 * stays open, discarding, until the client stops or finishes, for at most `LINGER_MS`; nothing
 * of the body is kept. Call it when the answer has finished.
 */
export function discardUnreadBody(req: IncomingMessage): void {
  const socket = req.socket;
  if (socket.destroyed) return;
  // An answer with `Connection: close` (the client asked for it) had node call destroySoon():
  // destroy once the answer is flushed. The timers below close the socket instead.
  socket.removeListener("finish", socket.destroy);
  // A body reader the route left behind (a web stream over `req`) would queue the rest.
  req.removeAllListeners("data");
  const close = () => socket.destroy();
  const idle = setTimeout(close, IDLE_MS);
  const total = setTimeout(close, LINGER_MS);
  idle.unref();
  total.unref();
  req.on("data", () => idle.refresh());
  req.once("end", () => {
    clearTimeout(idle);
    clearTimeout(total);
    // All read: closing now sends no reset. A kept-alive connection carries on instead.
    if (socket.writableEnded) socket.destroy();
  });
  req.once("close", () => {
    clearTimeout(idle);
    clearTimeout(total);
  });
  req.resume();
}
