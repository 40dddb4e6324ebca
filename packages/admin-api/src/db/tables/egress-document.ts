import type { RuleKind } from "@svc/core/egress";

/** The JSON shape of `egress_config.document` (spec "Egress configuration"), for both databases. */

export type PlaylistPolicy = "rewrite" | "passthrough" | "auto";

/** A proxy profile as stored: its URL keeps the credentials, which responses never show. */
export interface StoredProfile {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly disabled: boolean;
  readonly revision: number;
}

export interface StoredRule {
  readonly id: string;
  readonly kind: RuleKind;
  readonly pattern: string;
  readonly proxy: string;
}

/** The stored egress document (spec "Egress configuration") without `source` and `revision`. */
export interface StoredEgressDocument {
  readonly default: string;
  readonly playlist_policy: PlaylistPolicy;
  readonly docker_proxy_host: string;
  readonly proxies: readonly StoredProfile[];
  readonly rules: readonly StoredRule[];
}
