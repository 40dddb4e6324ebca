import type { GatewayConfig } from "../config/load.js";
import { createEgress, type Egress, type EgressOptions } from "./egress-client.js";
import { createEgressProxy, type EgressProxy } from "./egress-proxy.js";

function egressOptions(config: GatewayConfig): EgressOptions {
  return {
    allowedHosts: config.security.allowed_hosts,
    timeouts: {
      connectMs: config.egress.connect_timeout_ms,
      firstByteMs: config.egress.first_byte_timeout_ms,
      idleMs: config.egress.idle_timeout_ms,
    },
  };
}

/** The egress of a gateway process, built once at boot from its config. */
export function egressFromConfig(config: GatewayConfig): Egress {
  return createEgress(egressOptions(config));
}

/**
 * The loopback proxy ffmpeg fetches through (`-http_proxy`), with the same guard, allowlist
 * and timeouts as {@link egressFromConfig}; one per gateway process, started at boot.
 */
export function egressProxyFromConfig(config: GatewayConfig): Promise<EgressProxy> {
  return createEgressProxy(egressOptions(config));
}
