import { DIRECT, PROXY_SCHEMES, type RoutingDocument } from "./routing-document.js";
import { compileRulePattern } from "./rule-pattern.js";

export interface RoutingProblem {
  /** Key path inside the document (`proxies[1].url`, `rules[0].pattern`). */
  readonly path: string;
  readonly message: string;
}

/** Profile and rule ids: like channel ids, and never `direct` in any letter case. */
const ID = /^[A-Za-z0-9._-]{1,64}$/;
export const MAX_PROFILES = 256;
export const MAX_RULES = 1024;

/**
 * A proxy profile URL: `http`, `https`, `socks5` or `socks5h`, a host, an optional port and
 * optional `user:password`, nothing else (a path, query or fragment is a typo, not a setting).
 * Never echoes the URL: it may hold a password.
 */
export function checkProxyUrl(
  url: string,
): { ok: true; url: URL } | { ok: false; message: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, message: "must be an absolute URL such as socks5://host:1080" };
  }
  const scheme = u.protocol.slice(0, -1);
  if (!(PROXY_SCHEMES as readonly string[]).includes(scheme))
    return { ok: false, message: `scheme must be one of ${PROXY_SCHEMES.join(", ")}` };
  if (u.hostname === "") return { ok: false, message: "must name the proxy host" };
  if ((u.pathname !== "" && u.pathname !== "/") || u.search !== "" || u.hash !== "")
    return { ok: false, message: "must not carry a path, query or fragment" };
  if (u.password !== "" && u.username === "")
    return { ok: false, message: "a password needs a user name" };
  return { ok: true, url: u };
}

/** `true` for `direct` spelled in any case: such an id would shadow the direct route. */
export function isDirectName(id: string): boolean {
  return id.toLowerCase() === DIRECT;
}

/**
 * Every problem of a routing document (spec "Egress configuration"): unique valid ids, no
 * profile named `direct`, valid proxy URLs, compilable patterns (regex kinds on RE2), and
 * neither `default` nor a rule pointing at a missing or disabled profile.
 */
export function routingProblems(doc: RoutingDocument): RoutingProblem[] {
  const problems: RoutingProblem[] = [];
  if (doc.proxies.length > MAX_PROFILES)
    problems.push({ path: "proxies", message: `at most ${MAX_PROFILES} profiles` });
  if (doc.rules.length > MAX_RULES)
    problems.push({ path: "rules", message: `at most ${MAX_RULES} rules` });
  const enabled = new Map<string, boolean>();
  doc.proxies.forEach((p, i) => {
    if (!ID.test(p.id))
      problems.push({
        path: `proxies[${i}].id`,
        message: "must be 1-64 characters of A-Z a-z 0-9 . _ -",
      });
    else if (isDirectName(p.id))
      problems.push({ path: `proxies[${i}].id`, message: 'may not be "direct"' });
    else if (enabled.has(p.id))
      problems.push({ path: `proxies[${i}].id`, message: `duplicate profile id "${p.id}"` });
    enabled.set(p.id, !p.disabled);
    const url = checkProxyUrl(p.url);
    if (!url.ok) problems.push({ path: `proxies[${i}].url`, message: url.message });
  });
  const route = (id: string): string | undefined => {
    if (id === DIRECT) return undefined;
    const on = enabled.get(id);
    if (on === undefined) return `unknown proxy profile "${id}"`;
    return on ? undefined : `proxy profile "${id}" is disabled`;
  };
  const def = route(doc.default);
  if (def !== undefined) problems.push({ path: "default", message: def });
  const ruleIds = new Set<string>();
  doc.rules.forEach((r, i) => {
    if (!ID.test(r.id))
      problems.push({
        path: `rules[${i}].id`,
        message: "must be 1-64 characters of A-Z a-z 0-9 . _ -",
      });
    else if (ruleIds.has(r.id))
      problems.push({ path: `rules[${i}].id`, message: `duplicate rule id "${r.id}"` });
    ruleIds.add(r.id);
    const pattern = compileRulePattern(r.kind, r.pattern);
    if (!pattern.ok) problems.push({ path: `rules[${i}].pattern`, message: pattern.message });
    const target = route(r.proxy);
    if (target !== undefined) problems.push({ path: `rules[${i}].proxy`, message: target });
  });
  return problems;
}
