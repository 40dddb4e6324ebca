export {
  type AdvertisedUrl,
  createAdvertisedUrl,
  isWildcardListenUrl,
  resolveAdvertiseUrl,
} from "./advertise-url.js";
export { IMPORT_BODY_MULTIPLIER } from "./body-ceiling.js";
export { clientAddress, isLoopbackAddress, rateLimitSubject } from "./client-address.js";
export { createBaseApp } from "./create-app.js";
export { errorResponse } from "./error-handler.js";
export { createHealthRoutes, healthRoutes, type Readiness } from "./health-routes.js";
export { hostAllowed, hostName } from "./host-allowlist.js";
export { readJsonBody, readJsonBodyWithPieces } from "./json-body.js";
export { piecewiseBody, piecewiseStream } from "./piecewise-body.js";
export { logRequest, requestIds } from "./request-context.js";
export { requestHeader } from "./request-header.js";
export { directResponseHeaderList } from "./security-headers.js";
export { type FastLane, type RunningServer, startServer } from "./server.js";
export { TextPieces } from "./strict-json-steps.js";
export { readTlsFiles, type TlsFiles } from "./tls-files.js";
export type { AppEnv, Build } from "./types.js";
