import { isIP } from "node:net";
import type { Dispatcher } from "undici";
import { stripBrackets } from "./address-policy.js";
import type { EgressTimeouts } from "./egress-client.js";
import { checkTarget, type Resolver, systemResolver } from "./guarded-connector.js";
import { createHostAllowlist, type HostAllowlist } from "./host-allowlist.js";
import {
  createProxyTransport,
  effectiveProxyUrl,
  type ProxyTransport,
  type TransportOptions,
} from "./proxy-transport.js";
import { isRefusal } from "./refusal.js";
import { type CompiledRouting, compileRouting, type RouteChoice } from "./route-choice.js";
import {
  DIRECT_ONLY,
  type ProxyProfile,
  type RouteBinding,
  type RoutingDocument,
} from "./routing-document.js";

/** How a request names its route; every field is optional. */
export interface RouteRequest {
  /** The channel the request is made for: its stored binding and `channel_id` rules apply. */
  readonly channelId?: string;
  /** Overrides the channel's stored binding (a draft channel, a guide source's `proxy`). */
  readonly binding?: RouteBinding;
  /** Decides with this document instead of the stored one (the connection test's `draft`). */
  readonly routing?: CompiledRouting;
  /** Uses exactly this profile, saved or not (the connection test's `proxy_id`/`proxy_url`). */
  readonly profile?: ProxyProfile;
}

/**
 * The routing state of the process, shared by the egress client and the ffmpeg proxy: the
 * compiled document, the channel bindings, and one transport per proxy profile (rebuilt when
 * the profile's URL changes, closed when it goes away).
 */
export interface EgressRoutes {
  /** Installs a validated document (the admin API calls it after every committed write). */
  update(document: RoutingDocument): void;
  /** Where channel bindings come from (the full build's channel store). */
  bindChannels(lookup: (channelId: string) => RouteBinding | undefined): void;
  current(): CompiledRouting;
  choose(url: URL, request: RouteRequest): RouteChoice;
  /** The transport of a profile (cached for saved ones). */
  transport(profile: ProxyProfile): ProxyTransport;
  /** A transport for one unsaved profile; the caller closes it. */
  temporary(profile: ProxyProfile): ProxyTransport;
  /**
   * The guard's resolution and check of a target host, for routes through a proxy;
   * `port` is the one that will be dialled (for `host:port` allowlist entries).
   */
  check(host: string, port?: number): Promise<readonly string[]>;
  /**
   * The address guard applied to the proxy of an unsaved profile (issue 30 item 3): the
   * address it would be dialled at (after `docker_proxy_host`) must be public or in
   * `security.allowed_hosts`, else an {@link EgressRefusedError} is thrown before anything
   * is dialled. Returns the profile pinned to the checked address (a name that does not
   * resolve is returned as it is: dialling it fails as a proxy failure).
   */
  checkProxy(profile: ProxyProfile): Promise<ProxyProfile>;
  close(): Promise<void>;
}

export interface EgressRoutesOptions {
  readonly allowlist: HostAllowlist;
  readonly timeouts: EgressTimeouts;
  readonly resolve?: Resolver;
  /** True when the gateway runs in a container (then `docker_proxy_host` applies). */
  readonly inContainer?: boolean;
  readonly document?: RoutingDocument;
}

export function createEgressRoutes(options: EgressRoutesOptions): EgressRoutes {
  const resolve = options.resolve ?? systemResolver;
  let routing = compileRouting(options.document ?? DIRECT_ONLY);
  let bindingOf: (channelId: string) => RouteBinding | undefined = () => undefined;
  const transports = new Map<string, { url: string; transport: ProxyTransport }>();
  const check = (host: string, port?: number) => {
    const bare = stripBrackets(host);
    return checkTarget(bare, options.allowlist.has(bare, port), resolve);
  };
  const transportOptions = (): TransportOptions => ({
    timeouts: options.timeouts,
    check,
    dockerProxyHost: options.inContainer ? routing.document.docker_proxy_host : "",
  });
  const key = (p: ProxyProfile) => `${p.url}\n${transportOptions().dockerProxyHost}`;
  return {
    update(document) {
      routing = compileRouting(document);
      const live = new Map(document.proxies.map((p) => [p.id, key(p)]));
      for (const [id, entry] of transports) {
        if (live.get(id) !== entry.url) {
          transports.delete(id);
          void entry.transport.close().catch(() => undefined);
        }
      }
    },
    bindChannels(lookup) {
      bindingOf = lookup;
    },
    current: () => routing,
    choose(url, request) {
      if (request.profile !== undefined)
        return {
          ok: true,
          proxyId: request.profile.id,
          profile: request.profile,
          reason: "explicit",
        };
      const binding = request.binding ??
        (request.channelId === undefined ? undefined : bindingOf(request.channelId)) ?? {
          mode: "auto" as const,
        };
      return (request.routing ?? routing).choose(url, request.channelId, binding);
    },
    transport(profile) {
      const k = key(profile);
      const cached = transports.get(profile.id);
      if (cached !== undefined && cached.url === k) return cached.transport;
      if (cached !== undefined) void cached.transport.close().catch(() => undefined);
      const transport = createProxyTransport(profile, transportOptions());
      transports.set(profile.id, { url: k, transport });
      return transport;
    },
    temporary: (profile) => createProxyTransport(profile, transportOptions()),
    check,
    checkProxy: (profile) => checkProxyAddress(profile, transportOptions().dockerProxyHost, check),
    async close() {
      const all = [...transports.values()];
      transports.clear();
      await Promise.all(all.map((e) => e.transport.close().catch(() => undefined)));
    },
  };
}

const PROXY_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

async function checkProxyAddress(
  profile: ProxyProfile,
  dockerProxyHost: string,
  check: (host: string, port?: number) => Promise<readonly string[]>,
): Promise<ProxyProfile> {
  const dialled = effectiveProxyUrl(profile.url, dockerProxyHost);
  const port = Number(dialled.port) || (PROXY_PORTS[dialled.protocol] ?? 1080);
  let addresses: readonly string[];
  try {
    addresses = await check(stripBrackets(dialled.hostname), port);
  } catch (err) {
    if (isRefusal(err)) throw err;
    return profile;
  }
  // Dial exactly the address checked (no second lookup), except for an `https` proxy, whose
  // certificate names the host; a rewritten host is pinned too, since the transport would
  // resolve `docker_proxy_host` again.
  if (dialled.protocol === "https:" || isIP(stripBrackets(dialled.hostname)) !== 0)
    return { ...profile, url: dialled.href };
  const address = addresses[0]!;
  dialled.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { ...profile, url: dialled.href };
}

/** The dispatcher a choice uses: the guarded direct agent or the profile's transport. */
export function dispatcherFor(
  routes: EgressRoutes,
  choice: Extract<RouteChoice, { ok: true }>,
  direct: Dispatcher,
): Dispatcher {
  return "profile" in choice ? routes.transport(choice.profile).dispatcher : direct;
}

/**
 * The routes an egress client or the ffmpeg egress proxy uses when the caller hands it
 * none: the allowlist of `security.allowed_hosts` and direct connections only.
 */
export function defaultEgressRoutes(options: {
  readonly allowedHosts: readonly string[];
  readonly timeouts: EgressTimeouts;
  readonly resolve?: EgressRoutesOptions["resolve"];
}): EgressRoutes {
  return createEgressRoutes({
    allowlist: createHostAllowlist(options.allowedHosts),
    timeouts: options.timeouts,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
}
