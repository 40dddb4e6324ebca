import type { Context } from "hono";
import type { AppEnv } from "./types.js";

/**
 * One request header (`name` in lower case), read from node's already parsed header
 * object when the app runs on @hono/node-server. `c.req.header()` builds a web `Headers`
 * copy of every header first, which measured a tenth of a cached playlist answer's CPU
 * (issue 13 item 1). Falls back to it under `app.request()` (no node request).
 */
export function requestHeader<E extends AppEnv>(c: Context<E>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (incoming === undefined) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
