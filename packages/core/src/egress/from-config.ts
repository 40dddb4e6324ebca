import type { GatewayConfig } from "../config/load.js";
import { createEgress, type Egress } from "./egress-client.js";

/** The egress of a gateway process, built once at boot from its config. */
export function egressFromConfig(config: GatewayConfig): Egress {
  return createEgress({
    allowedHosts: config.security.allowed_hosts,
    timeouts: {
      connectMs: config.egress.connect_timeout_ms,
      firstByteMs: config.egress.first_byte_timeout_ms,
      idleMs: config.egress.idle_timeout_ms,
    },
  });
}
