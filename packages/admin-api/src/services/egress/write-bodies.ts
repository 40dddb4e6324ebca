import { RULE_KINDS } from "@svc/core/egress";
import * as v from "valibot";

/**
 * Bodies of the egress writes (docs/admin-api.md "Egress"). Unknown fields are rejected; the
 * read-only fields of a GET (`credential_configured`, `revision`, `source`) are accepted and
 * ignored, so a client may write back what it read.
 */
export const profileBody = v.strictObject({
  id: v.string(),
  name: v.optional(v.pipe(v.string(), v.maxLength(200)), ""),
  url: v.pipe(v.string(), v.maxLength(2048)),
  disabled: v.optional(v.boolean(), false),
  /** Drops the stored user name and password even when scheme and host are unchanged. */
  clear_credential: v.optional(v.boolean(), false),
  credential_configured: v.optional(v.unknown()),
  revision: v.optional(v.unknown()),
});

export const ruleBody = v.strictObject({
  id: v.optional(v.string()),
  kind: v.picklist(RULE_KINDS, `kind must be one of ${RULE_KINDS.join(", ")}`),
  pattern: v.string(),
  proxy: v.string(),
});

export const documentBody = v.strictObject({
  default: v.optional(v.string(), "direct"),
  playlist_policy: v.optional(v.picklist(["rewrite", "passthrough", "auto"]), "rewrite"),
  docker_proxy_host: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(253),
      v.regex(/^[A-Za-z0-9.:_-]*$/, "must be a host name or an IP address"),
    ),
    "",
  ),
  proxies: v.optional(v.array(profileBody), []),
  rules: v.optional(v.array(ruleBody), []),
  source: v.optional(v.unknown()),
  revision: v.optional(v.unknown()),
});

export type ProfileBody = v.InferOutput<typeof profileBody>;
export type RuleBody = v.InferOutput<typeof ruleBody>;
export type DocumentBody = v.InferOutput<typeof documentBody>;
