import {
  DIRECT,
  type ProxyProfile,
  type RouteBinding,
  type RoutingDocument,
  type RoutingRule,
} from "./routing-document.js";
import { compileRulePattern } from "./rule-pattern.js";

/** The route one request takes: `direct`, a profile, or none (fail closed, with the reason). */
export type RouteChoice = (
  | { readonly ok: true; readonly proxyId: typeof DIRECT }
  | { readonly ok: true; readonly proxyId: string; readonly profile: ProxyProfile }
  | { readonly ok: false; readonly proxyId: string; readonly message: string }
) & {
  /** What decided: `channel binding`, `rule <id>`, `default`, or the caller's explicit profile. */
  readonly reason?: string;
};

/** A routing document ready for per-request decisions (patterns compiled once). */
export interface CompiledRouting {
  readonly document: RoutingDocument;
  /**
   * Spec "Egress": `auto` tries the rules in order (first match wins), then `default`;
   * `direct` and `profile` bindings skip the rules.
   */
  choose(url: URL, channelId: string | undefined, binding: RouteBinding): RouteChoice;
}

/**
 * Compiles a document the admin API has validated. A pattern that fails to compile (only
 * possible for a document that bypassed validation) never matches.
 *
 * @example
 * const routing = compileRouting(doc);
 * routing.choose(new URL(src), "news", { mode: "auto" }) // { ok: true, proxyId: "vpn", profile }
 */
export function compileRouting(document: RoutingDocument): CompiledRouting {
  const profiles = new Map(document.proxies.map((p) => [p.id, p]));
  const rules = document.rules.map((rule) => ({
    rule,
    check: compileRulePattern(rule.kind, rule.pattern),
  }));
  const to = (proxyId: string, why: string, reason: string): RouteChoice => {
    if (proxyId === DIRECT) return { ok: true, proxyId: DIRECT, reason };
    const profile = profiles.get(proxyId);
    // Fail closed: a channel bound to a proxy must never silently go out direct.
    if (profile === undefined)
      return {
        ok: false,
        proxyId,
        reason,
        message: `${why} names proxy profile "${proxyId}", which does not exist`,
      };
    if (profile.disabled)
      return {
        ok: false,
        proxyId,
        reason,
        message: `${why} names proxy profile "${proxyId}", which is disabled`,
      };
    return { ok: true, proxyId, profile, reason };
  };
  return {
    document,
    choose(url, channelId, binding) {
      if (binding.mode === "direct") return { ok: true, proxyId: DIRECT, reason: "binding" };
      if (binding.mode === "profile") return to(binding.profileId, "the egress binding", "binding");
      for (const { rule, check } of rules)
        if (check.ok && check.test(ruleInput(rule, url, channelId)))
          return to(rule.proxy, `egress rule "${rule.id}"`, `rule ${rule.id}`);
      return to(document.default, "egress.default", "default");
    },
  };
}

/** What a rule kind matches against: the host, the channel id, or the URL without credentials. */
function ruleInput(rule: RoutingRule, url: URL, channelId: string | undefined): string {
  switch (rule.kind) {
    case "channel_id":
      return channelId ?? "";
    case "url_regex":
      return `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    default:
      return url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  }
}
