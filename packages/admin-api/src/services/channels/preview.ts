import type { Account, IssuedToken, SessionTokens } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import type { MutableAccountDirectory } from "../accounts/account-directory.js";

/**
 * A 5-minute preview JWT for one channel (spec "Sessions, probes, previews").
 * It is bound to an account's credential revision like a session: the caller's
 * own account, or for an API token the admin account that created the token.
 * `principal` is the caller (`Principal` of context/env.ts), narrowed to what a preview reads.
 */
export async function issuePreview(
  ctx: { accounts: MutableAccountDirectory; sessionTokens: SessionTokens },
  principal:
    | { readonly kind: "session"; readonly account: Account }
    | { readonly kind: "api_token"; readonly token: { readonly createdBy: string } },
  channelId: string,
): Promise<IssuedToken> {
  const account =
    principal.kind === "session"
      ? principal.account
      : (ctx.accounts.find(principal.token.createdBy) ??
        ctx.accounts.byConfigUsername(principal.token.createdBy));
  if (account === undefined || account.role !== "admin") {
    throw new GatewayError("forbidden", "the account that created this API token no longer exists");
  }
  return ctx.sessionTokens.issuePreview(
    {
      accountKey: account.configUsername,
      username: account.username,
      role: account.role,
      authRevision: account.authRevision,
    },
    channelId,
  );
}
