import { existsSync } from "node:fs";
import { createEgress, type Egress, type EgressOptions } from "./egress-client.js";
import { createEgressProxy, type EgressProxy } from "./egress-proxy.js";
import { createEgressRoutes, type EgressRoutes } from "./egress-routes.js";
import { createHostAllowlist } from "./host-allowlist.js";
import type { RoutingDocument } from "./routing-document.js";

/**
 * What the egress reads of the config file (`GatewayConfig` of config/load.ts, which
 * satisfies it): declared here so egress imports nothing of config, which validates
 * its routes with egress's own checks.
 */
export interface EgressConfig {
  readonly security: { readonly allowed_hosts: EgressOptions["allowedHosts"] };
  readonly egress: {
    readonly connect_timeout_ms: number;
    readonly first_byte_timeout_ms: number;
    readonly idle_timeout_ms: number;
    readonly default: RoutingDocument["default"];
    readonly docker_proxy_host: RoutingDocument["docker_proxy_host"];
    readonly proxies: readonly RoutingDocument["proxies"][number][];
    readonly rules: readonly RoutingDocument["rules"][number][];
  };
}

function egressOptions(config: EgressConfig): EgressOptions {
  return {
    allowedHosts: config.security.allowed_hosts,
    timeouts: {
      connectMs: config.egress.connect_timeout_ms,
      firstByteMs: config.egress.first_byte_timeout_ms,
      idleMs: config.egress.idle_timeout_ms,
    },
  };
}

/** Docker writes `/.dockerenv`, podman `/run/.containerenv`: read once at boot. */
export function runsInContainer(): boolean {
  return existsSync("/.dockerenv") || existsSync("/run/.containerenv");
}

/** The config file's `egress` section as a routing document (the full build's seed). */
export function routingFromConfig(config: EgressConfig): RoutingDocument {
  const e = config.egress;
  return {
    default: e.default,
    docker_proxy_host: e.docker_proxy_host,
    proxies: e.proxies.map((p) => ({ id: p.id, name: p.name, url: p.url, disabled: p.disabled })),
    rules: e.rules.map((r) => ({ id: r.id, kind: r.kind, pattern: r.pattern, proxy: r.proxy })),
  };
}

/**
 * The egress of a gateway process, built once at boot from its config. `routing: true` (the
 * full build) starts from the config file's routes until the stored document is installed;
 * without it (the lite build, which ignores `egress.proxies`) every request goes direct.
 */
export function egressFromConfig(
  config: EgressConfig,
  options: { routing?: boolean } = {},
): Egress {
  const base = egressOptions(config);
  const routes: EgressRoutes = createEgressRoutes({
    allowlist: createHostAllowlist(base.allowedHosts),
    timeouts: base.timeouts,
    inContainer: runsInContainer(),
    ...(options.routing ? { document: routingFromConfig(config) } : {}),
  });
  return createEgress({ ...base, routes });
}

/**
 * The loopback proxy ffmpeg fetches through (`-http_proxy`), with the same guard, allowlist
 * and timeouts as {@link egressFromConfig}, and its routes when given; one per gateway
 * process, started at boot.
 */
export function egressProxyFromConfig(
  config: EgressConfig,
  routes?: EgressRoutes,
): Promise<EgressProxy> {
  return createEgressProxy({ ...egressOptions(config), ...(routes ? { routes } : {}) });
}
