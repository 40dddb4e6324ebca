/** The scopes an admin API token carries (spec "Admin API tokens"); none implies another. */
export type TokenScope = "read" | "write" | "delete" | "refresh";
export const TOKEN_SCOPES: readonly TokenScope[] = ["read", "write", "delete", "refresh"];
