import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One record per API-token request, allowed or denied. No foreign key: the
 * token id and prefix snapshots outlive the token.
 */
export const apiTokenAudit = sqliteTable(
  "api_token_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenId: text("token_id").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    requiredScope: text("required_scope"),
    decision: text("decision", { enum: ["allow", "deny"] }).notNull(),
    status: integer("status").notNull(),
    remote: text("remote").notNull(),
    userAgent: text("user_agent").notNull(),
    requestId: text("request_id").notNull(),
    reason: text("reason"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("api_token_audit_created_idx").on(t.createdAt)],
);
