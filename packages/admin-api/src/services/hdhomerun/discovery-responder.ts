import { createSocket } from "node:dgram";
import {
  type DiscoverDevice,
  discoverReply,
  parseDiscoverRequest,
  requestMatches,
} from "./discovery-packet.js";

export interface DiscoveryResponder {
  /** The UDP port it answers on. */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The HDHomeRun discovery responder (extensions "HDHomeRun", `udp_discovery`): a UDP
 * socket on `port` (65001 by default) that answers each valid discover request for a
 * tuner, or for this device's id, with **one** reply to its sender, and drops anything
 * else without a word: a bad CRC, a malformed or truncated packet, another packet type,
 * another device's id. `device()` is read per request (undefined: the key is revoked,
 * expired or unknown, and nothing is answered).
 *
 * @example
 * const udp = await startDiscoveryResponder({ host: "0.0.0.0", port: 65001, device });
 * await udp.close();
 */
export async function startDiscoveryResponder(o: {
  readonly host: string;
  readonly port: number;
  readonly device: () => DiscoverDevice | undefined;
  readonly onError?: (err: unknown) => void;
}): Promise<DiscoveryResponder> {
  const socket = createSocket({ type: o.host.includes(":") ? "udp6" : "udp4", reuseAddr: true });
  socket.on("message", (packet, from) => {
    const request = parseDiscoverRequest(packet);
    if (request === undefined) return;
    const device = o.device();
    if (device === undefined || !requestMatches(request, device)) return;
    socket.send(discoverReply(device), from.port, from.address, (err) => {
      if (err) o.onError?.(err);
    });
  });
  socket.on("error", (err) => o.onError?.(err));
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(o.port, o.host, () => {
      socket.off("error", reject);
      resolve();
    });
  });
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
