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
  MAX_REDIRECTS,
} from "./egress-client.js";
export { createEgressProxy, type EgressProxy, type EgressProxyOptions } from "./egress-proxy.js";
export { egressFromConfig, egressProxyFromConfig } from "./from-config.js";
export type { Resolver } from "./guarded-connector.js";
export { createHostAllowlist, type HostAllowlist } from "./host-allowlist.js";
