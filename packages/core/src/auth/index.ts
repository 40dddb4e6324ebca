export {
  API_TOKEN_PREFIX,
  bearerFromHeader,
  isApiTokenShape,
  playbackCredential,
} from "./bearer.js";
export {
  createRateLimiter,
  type MemoryRateLimiter,
  RATE_WINDOW_MS,
  type RateLimiter,
} from "./login-limiter.js";
export {
  createLoginRoute,
  isoSeconds,
  loginAnswer,
  loginBody,
  loginResponse,
  loginRoutes,
} from "./login-route.js";
export {
  BCRYPT_COST,
  createPasswordHasher,
  DEFAULT_THREADPOOL_SIZE,
  decoyHash,
  hashSlots,
  type PasswordHasher,
} from "./passwords.js";
export {
  CLOCK_SKEW_SEC,
  createSessionTokens,
  type IssuedToken,
  PREVIEW_TTL_SEC,
  type SessionClaims,
  type SessionTokens,
} from "./session-tokens.js";
export { resolveSigningKeys, type SigningKeys } from "./signing-keys.js";
export {
  createUnknownTokenFold,
  type FoldedDenials,
  localUnknownTokenFold,
  type SharedUnknownTokenFold,
  UNKNOWN_TOKEN_BUDGET,
  type UnknownTokenFold,
} from "./unknown-token-fold.js";
export {
  type Account,
  type AccountDirectory,
  accountsFromConfig,
  createStaticDirectory,
} from "./users.js";
