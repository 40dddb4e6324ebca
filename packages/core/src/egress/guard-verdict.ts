import type { Egress } from "./egress-client.js";
import { dialPort } from "./host-allowlist.js";
import { isRefusal } from "./refusal.js";

/**
 * What the egress guard would answer a request for `url`, without connecting: the
 * refusal's message (`target address is loopback`, …), or undefined when it would dial
 * the target or cannot tell yet (a URL that does not parse, a name that does not
 * resolve: the request itself reports those). It runs the guard's own check
 * (`checkTarget` with `security.allowed_hosts`, as the connector and the proxy routes
 * do), so work whose every fetch would be refused can be refused before it starts.
 *
 * @example
 * const why = await guardRefusal(egress, "http://127.0.0.2:8080/seg.m4s");
 * if (why !== undefined) return forbidden(why);
 */
export async function guardRefusal(
  egress: Pick<Egress, "routes">,
  url: string,
): Promise<string | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return undefined;
  try {
    await egress.routes.check(target.hostname, dialPort(target));
    return undefined;
  } catch (err) {
    return isRefusal(err) ? err.message : undefined;
  }
}
