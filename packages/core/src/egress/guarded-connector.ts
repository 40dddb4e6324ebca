import { lookup } from "node:dns/promises";
import { isIP, type Socket } from "node:net";
import { buildConnector } from "undici";
import { canonicalAddress, classifyAddress, stripBrackets } from "./address-policy.js";
import type { HostAllowlist } from "./host-allowlist.js";
import { EgressRefusedError } from "./refusal.js";

/** Resolves a host name to every address it has (the system resolver, like any client). */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

export const systemResolver: Resolver = async (hostname) => {
  // A name no DNS can hold is answered here and never handed to getaddrinfo: glibc and musl
  // refuse it too without a query, but which NSS modules run is the machine's choice.
  if (!isDnsName(hostname))
    throw Object.assign(new Error("not a valid DNS name"), { code: "ENOTFOUND" });
  return (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
};

/** RFC 1035 2.3.4: labels of 1-63 octets, at most 253 octets without the root's dot. */
function isDnsName(hostname: string): boolean {
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || Buffer.byteLength(name) > 253) return false;
  return name.split(".").every((label) => label.length > 0 && Buffer.byteLength(label) <= 63);
}

/**
 * The one connector of the gateway's outbound HTTP (issue 3 "Egress guard"): it
 * resolves the host once, classifies every address, dials exactly the address it
 * checked (a literal, so no second lookup can change it), keeps TLS SNI on the
 * host name, and re-checks `socket.remoteAddress` once connected. undici's
 * `connect.lookup` alone would not do: it is skipped for IP-literal hosts such as
 * `[::ffff:127.0.0.1]`.
 */
export function createGuardedConnector(options: {
  allowlist: HostAllowlist;
  connectTimeoutMs: number;
  resolve?: Resolver;
}): buildConnector.connector {
  const base = buildConnector({ timeout: options.connectTimeoutMs });
  const resolve = options.resolve ?? systemResolver;
  return (opts, callback) => {
    const host = stripBrackets(opts.hostname);
    const port = opts.port !== "" ? Number(opts.port) : opts.protocol === "https:" ? 443 : 80;
    const allowed = options.allowlist.has(host, port);
    pickAddress(host, allowed, resolve).then(
      (address) => {
        const servername = opts.servername ?? (isIP(host) === 0 ? host : undefined);
        base(
          { ...opts, hostname: address, ...(servername ? { servername } : {}) },
          (err, socket) => {
            if (err !== null) return callback(err, null);
            const remote = (socket as Socket).remoteAddress;
            const same =
              remote !== undefined && canonicalAddress(remote) === canonicalAddress(address);
            if (!same || (!allowed && !classifyAddress(remote).public)) {
              socket.destroy();
              return callback(
                new EgressRefusedError("connected peer differs from the checked address", "peer"),
                null,
              );
            }
            callback(null, socket);
          },
        );
      },
      (err: unknown) => callback(err as Error, null),
    );
  };
}

/** The address to dial: the literal itself, or the first resolved one when all pass. */
async function pickAddress(host: string, allowed: boolean, resolve: Resolver): Promise<string> {
  return (await checkTarget(host, allowed, resolve))[0]!;
}

/**
 * Resolves a target host here (a literal stands for itself) and, unless it is allow-listed,
 * refuses it when any address is not public. Routes through a proxy check their target with
 * it before the proxy is asked to connect (docs/egress.md "The guard through a proxy").
 */
export async function checkTarget(
  host: string,
  allowed: boolean,
  resolve: Resolver,
): Promise<readonly string[]> {
  let addresses: readonly string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    throw Object.assign(new Error(`cannot resolve the target host (${String(code ?? "error")})`), {
      code: typeof code === "string" ? code : "ENOTFOUND",
    });
  }
  if (addresses.length === 0) throw new EgressRefusedError("host has no address", "dns");
  if (!allowed) {
    // Every address must pass: a name that mixes public and private answers is refused.
    for (const a of addresses) {
      const verdict = classifyAddress(a);
      if (!verdict.public) {
        throw new EgressRefusedError(`target address is ${verdict.range}`, verdict.range);
      }
    }
  }
  return addresses;
}
