import type { Logger } from "@svc/core/log";
import type pg from "pg";
import { describeDbError } from "./error-text.js";

/**
 * The channel every write transaction notifies (`versions.ts`): the payload is
 * the resource whose version moved. PostgreSQL delivers a `NOTIFY` only when
 * its transaction commits, so a listener never hears of a write it cannot read.
 */
export const STATE_CHANNEL = "svc_state_changed";

/** Reconnect backoff of a dropped listener: doubles from the first to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

export interface ChangeListenerOptions {
  /** Opens a new, unconnected client (the pool's connection string and timeouts). */
  readonly client: () => pg.Client;
  /**
   * A notification arrived, or the listener (re)connected (anything written while it
   * was down was not heard): the caller reads the versions (the poll's work, at once).
   * The payload (the resource) is not passed on: the versions say what moved.
   */
  readonly onChange: () => void;
  /** One line for an error, without secrets (the password of the URL). */
  readonly describeError?: (err: unknown) => string;
  readonly log?: Logger;
}

export interface ChangeListener {
  /** Connects and listens; resolves once listening, or after the first failure (then retries). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One dedicated connection, outside the pool, that `LISTEN`s on
 * {@link STATE_CHANNEL}: the push half of the change feed (the poll stays as
 * its fallback). When the connection drops it is opened again with a backoff
 * from 250 ms to 5 s; one log line when it is lost and one when it is back.
 *
 * @example
 * const listener = createChangeListener({ client: () => new pg.Client(url), onChange: () => feed.notified() });
 * await listener.start();
 */
export function createChangeListener(o: ChangeListenerOptions): ChangeListener {
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = RETRY_FIRST_MS;
  let closed = false;
  let lost = false;

  const dropped = (c: pg.Client, err: unknown) => {
    if (client !== c) return;
    client = undefined;
    c.removeAllListeners("notification");
    // An error after `end()` or a second one for the same client changes nothing.
    c.on("error", () => {});
    void c.end().catch(() => {});
    if (closed) return;
    if (!lost)
      o.log?.warn(
        { error: (o.describeError ?? describeDbError)(err) },
        "state change listener: connection lost; reconnecting (the poll covers the gap)",
      );
    lost = true;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };

  const connect = async () => {
    if (closed) return;
    const c = o.client();
    client = c;
    c.on("error", (err) => dropped(c, err));
    c.on("end", () => dropped(c, new Error("connection ended")));
    c.on("notification", (n) => {
      if (n.channel === STATE_CHANNEL) o.onChange();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${STATE_CHANNEL}`);
    } catch (err) {
      dropped(c, err);
      return;
    }
    if (client !== c) return;
    if (lost) o.log?.info("state change listener: listening again");
    lost = false;
    delay = RETRY_FIRST_MS;
    o.onChange();
  };

  return {
    start: () => connect(),
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c !== undefined) await c.end().catch(() => {});
    },
  };
}
