/**
 * The egress routing document (spec "Egress configuration"): proxy profiles, routing rules
 * and the default route. The admin API stores and validates it; the egress module only reads
 * the compiled form ({@link compileRouting}). Profile URLs here carry their credentials:
 * this shape never leaves the process (responses use the admin API's redacted view).
 */

/** `direct`: the gateway dials the target itself. Never a profile id. */
export const DIRECT = "direct";

export const PROXY_SCHEMES = ["http", "https", "socks5", "socks5h"] as const;
export type ProxyScheme = (typeof PROXY_SCHEMES)[number];

export const RULE_KINDS = [
  "host_suffix",
  "host_exact",
  "channel_id",
  "host_regex",
  "url_regex",
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

export interface ProxyProfile {
  readonly id: string;
  readonly name: string;
  /** `scheme://[user:pass@]host:port`; a secret when it carries credentials. */
  readonly url: string;
  readonly disabled: boolean;
}

export interface RoutingRule {
  readonly id: string;
  readonly kind: RuleKind;
  readonly pattern: string;
  /** A profile id or `direct`. */
  readonly proxy: string;
}

export interface RoutingDocument {
  /** `direct` or a profile id. */
  readonly default: string;
  /** Replaces a profile's loopback host when the gateway runs in a container. */
  readonly docker_proxy_host: string;
  readonly proxies: readonly ProxyProfile[];
  readonly rules: readonly RoutingRule[];
}

/** A channel's `egress` binding (spec "Channels": `egress` block, `egress_binding`). */
export type RouteBinding =
  | { readonly mode: "auto" }
  | { readonly mode: "direct" }
  | { readonly mode: "profile"; readonly profileId: string };

export const DIRECT_ONLY: RoutingDocument = Object.freeze({
  default: DIRECT,
  docker_proxy_host: "",
  proxies: Object.freeze([]),
  rules: Object.freeze([]),
});

/**
 * A route setting as guide sources write it (spec "Guide source": `proxy` is `auto`, `direct`
 * or a profile id) turned into a binding for `egress.request(url, { route: { binding } })`.
 * @example await egress.request(source.url, { route: { binding: bindingFromSetting(source.proxy) } });
 */
export function bindingFromSetting(setting: string): RouteBinding {
  if (setting === "auto") return { mode: "auto" };
  if (setting === DIRECT || setting === "") return { mode: "direct" };
  return { mode: "profile", profileId: setting };
}
