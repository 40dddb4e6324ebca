import type { Context } from "hono";
import type { AppEnv } from "./types.js";

/**
 * The client's address: the TCP peer. Forwarding headers are not trusted (the
 * gateway has no trusted-proxy list), so a client cannot pick its own rate-limit key.
 */
export function clientAddress<E extends AppEnv>(c: Context<E>): string {
  const remote = c.env?.incoming?.socket?.remoteAddress ?? "";
  return remote.startsWith("::ffff:") ? remote.slice(7) : remote;
}

export function isLoopbackAddress(address: string): boolean {
  return address === "::1" || address.startsWith("127.");
}
