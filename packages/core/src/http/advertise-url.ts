/**
 * `server.advertise_url` once the listener is up (contract "Cluster mode"): how the other
 * instances reach this one, e.g. to fetch a channel from the instance that packages it.
 * Resolved once by the boot sequence; asked for by whatever needs it after that.
 */
export interface AdvertisedUrl {
  /** The configured value, or "" (then the listener's own address is used). */
  readonly configured: string;
  /**
   * The resolved URL without a trailing slash (`http://10.0.0.5:8080`, or the configured
   * `https://gw-1.internal/tv`). Throws before the listener is up: nothing can need it
   * earlier (requests and autostart work begin after it).
   */
  url(): string;
  /** Called by the boot sequence with the first plain listener's URL (port 0 resolved). */
  resolve(listenUrl: string): string;
}

/**
 * @example
 * const advertised = createAdvertisedUrl(config.server.advertise_url);
 * advertised.resolve("http://127.0.0.1:40123"); // "http://127.0.0.1:40123" when none is configured
 */
export function createAdvertisedUrl(configured: string): AdvertisedUrl {
  let resolved: string | undefined;
  return {
    configured,
    url() {
      if (resolved === undefined) throw new Error("advertise_url is known once the listener is up");
      return resolved;
    },
    resolve(listenUrl) {
      resolved = resolveAdvertiseUrl(configured, listenUrl);
      return resolved;
    },
  };
}

/** The configured URL without its trailing slashes, else the listener's own URL. */
export function resolveAdvertiseUrl(configured: string, listenUrl: string): string {
  return (configured === "" ? listenUrl : configured).replace(/\/+$/, "");
}

/**
 * True for a listener bound to every address (`0.0.0.0`, `::`): its own URL names no
 * address another machine can reach, so a cluster instance must set `advertise_url`.
 */
export function isWildcardListenUrl(listenUrl: string): boolean {
  const host = new URL(listenUrl).hostname;
  return host === "0.0.0.0" || host === "[::]";
}
