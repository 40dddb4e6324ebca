import { sql } from "drizzle-orm";
import { bigint, integer, rowId, text, textEnum } from "./twin-column.js";
import { twinTable } from "./twin-table.js";

/**
 * One record per API-token request, allowed or denied. No foreign key: the
 * token id and prefix snapshots outlive the token. Denials of unknown tokens
 * (`token_id` "") are budgeted and folded (`@svc/core/auth` unknown-token-fold.ts);
 * the two partial indexes let the listing take the newest of each kind apart.
 */
export const apiTokenAudit = twinTable(
  "api_token_audit",
  {
    id: rowId("id"),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    requiredScope: text("required_scope"),
    decision: textEnum("decision", ["allow", "deny"]).notNull(),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    userAgent: text("user_agent").notNull(),
    requestId: text("request_id").notNull(),
    reason: text("reason"),
    createdAt: bigint("created_at").notNull(),
    /**
     * When the request was recorded, epoch microseconds: the listing's order. With several
     * workers each writes its own batches, so the row id does not follow the requests.
     */
    stampUs: bigint("stamp_us").notNull().default(0),
  },
  (t, k) => [
    k.index("api_token_audit_created_idx").on(t.createdAt),
    k
      .index("api_token_audit_known_idx")
      .on(t.stampUs, t.id)
      .where(sql`${t.tokenId} ${k.notEqual} ''`),
    k.index("api_token_audit_unknown_idx").on(t.stampUs, t.id).where(sql`${t.tokenId} = ''`),
  ],
);
