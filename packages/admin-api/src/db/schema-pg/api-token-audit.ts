import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { epoch } from "./epoch.js";

/** `apiTokenAudit` in PostgreSQL's types; what it holds: `../schema/api-token-audit.ts`. */
export const apiTokenAudit = pgTable(
  "api_token_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
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
    createdAt: epoch("created_at").notNull(),
    stampUs: epoch("stamp_us").notNull().default(0),
  },
  (t) => [
    index("api_token_audit_created_idx").on(t.createdAt),
    index("api_token_audit_known_idx").on(t.stampUs, t.id).where(sql`${t.tokenId} <> ''`),
    index("api_token_audit_unknown_idx").on(t.stampUs, t.id).where(sql`${t.tokenId} = ''`),
  ],
);
