import type { GatewayConfig } from "@svc/core/config";
import { checkPlaybackKey } from "../playback-keys/authorize-key.js";
import type { PlaybackKeyStore } from "../playback-keys/key-store.js";
import { deviceIdOf } from "./device-id.js";
import type { DiscoverDevice } from "./discovery-packet.js";

/**
 * The device UDP discovery announces: the playback key `extensions.hdhomerun.
 * discovery_key_id` names. The gateway stores only a key's digest, and the device's
 * `BaseURL` carries the key, so the setting holds the key itself (`v1…`); it is checked
 * like any `/p/` use on every request (a revoked, disabled or expired key: no answer).
 * `origin`: `public_base_url`, else the address the gateway listens on.
 */
export function discoveryDevice(
  ctx: {
    readonly config: GatewayConfig;
    readonly keys: PlaybackKeyStore;
    readonly settings: { current(): { publicBaseUrl: string } };
  },
  origin: () => string,
): () => DiscoverDevice | undefined {
  const presented = ctx.config.extensions.hdhomerun.discovery_key_id;
  return () => {
    const check = checkPlaybackKey(ctx.keys, presented);
    if (!check.ok) return undefined;
    return {
      deviceId: deviceIdOf(check.key.id),
      tunerCount: check.key.maxConnections ?? ctx.config.extensions.hdhomerun.tuner_count,
      baseUrl: `${(ctx.settings.current().publicBaseUrl || origin()).replace(/\/$/, "")}/p/${presented}/hdhr`,
    };
  };
}
