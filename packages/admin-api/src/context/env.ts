import type { Account, SessionClaims } from "@svc/core/auth";
import type { AppEnv } from "@svc/core/http";
import type { ApiTokenRecord } from "../services/api-tokens/token-record.js";
import type { PlaybackKeyRecord } from "../services/playback-keys/key-store.js";

/** Who is calling a management route, as the credential gate established it. */
export type Principal =
  | { readonly kind: "session"; readonly account: Account; readonly claims: SessionClaims }
  | { readonly kind: "api_token"; readonly token: ApiTokenRecord };

/** Hono environment of the admin routes: the shared one plus the caller. */
export interface AdminEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { principal: Principal; playbackKey: PlaybackKeyRecord };
}
