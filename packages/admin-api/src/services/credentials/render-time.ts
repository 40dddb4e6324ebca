import { isoSeconds } from "@svc/core/auth";

/** A credential's optional time (`expires_at`, `last_used_at`, `revoked_at`) as responses show it. */
export const isoOrNull = (ms: number | null) => (ms === null ? null : isoSeconds(new Date(ms)));
