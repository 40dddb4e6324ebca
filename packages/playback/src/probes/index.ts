/**
 * `@svc/playback/probes`: what the admin API's probe routes need (spec "Sessions, probes,
 * previews"): the probe action, the result shapes, the source probe's `proxy_id` and the
 * DASH keys precondition. The other builders stay internal to the package.
 */
export {
  type DashProbeResult,
  dashProbeKeysProblem,
  type HttpProbeResult,
  type SourceProbeResult,
  withProxyId,
} from "./probe-result.js";
export { probeSource, type SourceProbe, type SourceProbeOptions } from "./source-probe.js";
