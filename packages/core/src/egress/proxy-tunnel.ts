import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { buildConnector } from "undici";
import { classifyError } from "./egress-client.js";
import { refusalPhrase } from "./proxy-relay.js";

/** RFC 8446 5.1: a TLS connection opens with a handshake record (content type 22), version 3.x. */
const TLS_HANDSHAKE = 0x16;
const TLS_MAJOR = 0x03;

/**
 * Answers one `CONNECT host:port` (RFC 9110 9.3.6) already authenticated: the guarded
 * connector resolves the host once, checks every address, dials the checked literal and
 * re-checks the peer, exactly as for the gateway's own requests. Any port is allowed (the
 * egress guard has no port policy and HTTPS origins on 8443 are common), but the tunnel
 * carries TLS only: ffmpeg opens one solely for `https://` URLs, so a first client byte
 * that is not a TLS handshake record closes both sides before anything is relayed, and a
 * server that speaks first (SMTP, SSH) never gets its banner through.
 */
export function openTunnel(
  connect: buildConnector.connector,
  target: string,
  client: Socket,
  head: Buffer,
  idleMs: number,
  onRefused?: (target: string, reason: string) => void,
): void {
  const parsed = parseAuthority(target);
  if (parsed === undefined) {
    rawAnswer(client, 400, "Bad Request", "malformed CONNECT target");
    return;
  }
  const { hostname, port } = parsed;
  connect({ hostname, host: `${hostname}:${port}`, protocol: "http:", port }, (err, socket) => {
    if (err !== null) {
      const f = classifyError(err);
      if (f.kind === "refused") {
        onRefused?.(`https://${target}`, f.message);
        return rawAnswer(client, 403, refusalPhrase(f.message), f.message);
      }
      if (f.kind === "timeout") return rawAnswer(client, 504, "Gateway Timeout", f.message);
      return rawAnswer(client, 502, "Bad Gateway", f.message);
    }
    const upstream = socket as Socket;
    if (client.destroyed) return upstream.destroy();
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", closeBoth).on("close", closeBoth).setTimeout(idleMs, closeBoth);
    client.on("close", closeBoth);
    client.setTimeout(idleMs, closeBoth);
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    const start = (first: Buffer) => {
      if (first[0] !== TLS_HANDSHAKE || (first.length > 1 && first[1] !== TLS_MAJOR))
        return closeBoth();
      upstream.write(first);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    if (head.length > 0) start(head);
    else client.once("data", start);
  });
}

/** `host:port` with a bracketed IPv6 literal allowed; the host normalized as a URL host is. */
export function parseAuthority(target: string): { hostname: string; port: string } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]]+):(\d{1,5})$/.exec(target);
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65_535) return undefined;
  try {
    // The allowlist matches hosts as the WHATWG URL parser writes them (host-allowlist.ts).
    return { hostname: new URL(`http://${m[1]}/`).hostname, port: String(Number(m[2])) };
  } catch {
    return undefined;
  }
}

/** A complete HTTP/1.1 answer on a socket that is no longer an HTTP response, then close. */
export function rawAnswer(
  socket: Duplex,
  status: number,
  phrase: string,
  text: string,
  proxyAuthenticate?: string,
): void {
  if (!socket.writable) return void socket.destroy();
  const body = text === "" ? "" : `${text}\n`;
  const challenge =
    proxyAuthenticate === undefined ? "" : `proxy-authenticate: ${proxyAuthenticate}\r\n`;
  socket.end(
    `HTTP/1.1 ${status} ${phrase}\r\n${challenge}content-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
