export {
  type AddressVerdict,
  canonicalAddress,
  classifyAddress,
  isIpLiteral,
} from "./address-policy.js";
export { type CappedBody, readBodyCapped } from "./body-ceiling.js";
export {
  createEgress,
  type Egress,
  type EgressFailure,
  type EgressFailureKind,
  type EgressOptions,
  type EgressRequestOptions,
  type EgressResponse,
  type EgressResult,
  type EgressTimeouts,
  type FailureCause,
  MAX_REDIRECTS,
} from "./egress-client.js";
export {
  createEgressProxy,
  type EgressProxy,
  type EgressProxyOptions,
  type ProxyGrant,
} from "./egress-proxy.js";
export {
  createEgressRoutes,
  type EgressRoutes,
  type EgressRoutesOptions,
  type RouteRequest,
} from "./egress-routes.js";
export {
  egressFromConfig,
  egressProxyFromConfig,
  routingFromConfig,
  runsInContainer,
} from "./from-config.js";
export { guardRefusal } from "./guard-verdict.js";
export type { Resolver } from "./guarded-connector.js";
export { createHostAllowlist, type HostAllowlist } from "./host-allowlist.js";
export type { BodyRewrite } from "./proxy-relay.js";
export { effectiveProxyUrl, isDockerRewritable } from "./proxy-transport.js";
export { EgressRefusedError, isRefusal } from "./refusal.js";
export { type CompiledRouting, compileRouting, type RouteChoice } from "./route-choice.js";
export {
  bindingFromSetting,
  DIRECT,
  PROXY_SCHEMES,
  type ProxyProfile,
  type ProxyScheme,
  type RouteBinding,
  type RoutingDocument,
  type RoutingRule,
  RULE_KINDS,
  type RuleKind,
} from "./routing-document.js";
export {
  checkProxyUrl,
  isDirectName,
  MAX_PROFILES,
  MAX_RULES,
  type RoutingProblem,
  routingProblems,
} from "./routing-validation.js";
export { compileRulePattern, MAX_PATTERN_LENGTH, type PatternCheck } from "./rule-pattern.js";
export { isSensitiveHeader, withoutSensitiveHeaders } from "./sensitive-headers.js";
export {
  type CarriedSecrets,
  type CarryMode,
  carrySecrets,
  type SourceSecrets,
  sourceOrigin,
} from "./source-secrets.js";
