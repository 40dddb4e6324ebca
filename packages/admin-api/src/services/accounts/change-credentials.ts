import type { Account, PasswordHasher } from "@svc/core/auth";
import { GatewayError } from "@svc/core/errors";
import type { MutableAccountDirectory } from "./account-directory.js";

export interface CredentialChange {
  readonly currentPassword: string;
  readonly username?: string | undefined;
  readonly newPassword?: string | undefined;
}

/** Spec "Limits": password 8 to 72 bytes; username at most 64 characters, no control characters. */
export function validateCredentialChange(change: CredentialChange): void {
  if (change.username === undefined && change.newPassword === undefined) {
    throw new GatewayError("invalid_request", "give username or new_password");
  }
  if (change.newPassword !== undefined) {
    const bytes = Buffer.byteLength(change.newPassword, "utf8");
    if (bytes < 8 || bytes > 72) {
      throw new GatewayError("invalid_request", "new_password: must be 8 to 72 bytes");
    }
  }
  if (change.username !== undefined) {
    const chars = [...change.username];
    if (chars.length === 0 || chars.length > 64) {
      throw new GatewayError("invalid_request", "username: must be 1 to 64 characters");
    }
    if (/[\p{Cc}]/u.test(change.username)) {
      throw new GatewayError("invalid_request", "username: may not contain control characters");
    }
  }
}

/**
 * `PUT /v1/me/credentials` rules: the current password must match (422), a
 * username held by another account is taken (409). The override row is
 * committed with `auth_revision + 1` (a compare-and-set on the revision read
 * here, so a concurrent change on another instance is a conflict, not lost)
 * before the directory changes, so every session issued earlier stops
 * verifying at once.
 */
export async function changeCredentials(
  deps: { accounts: MutableAccountDirectory; passwords: PasswordHasher },
  account: Account,
  change: CredentialChange,
): Promise<Account> {
  validateCredentialChange(change);
  if (!(await deps.passwords.verify(change.currentPassword, account.passwordHash))) {
    throw new GatewayError("current_password_invalid", "current password is wrong");
  }
  const username = change.username ?? account.username;
  const holder = deps.accounts.find(username);
  if (holder !== undefined && holder.configUsername !== account.configUsername) {
    throw new GatewayError("username_taken", "username is in use");
  }
  const passwordHash =
    change.newPassword === undefined
      ? account.passwordHash
      : await deps.passwords.hash(change.newPassword);
  // Re-read after the awaits: a concurrent change of the same account must not be lost.
  const latest = deps.accounts.byConfigUsername(account.configUsername) ?? account;
  if (latest.authRevision !== account.authRevision) {
    throw new GatewayError("conflict", "credentials changed concurrently; log in again");
  }
  const clash = deps.accounts.find(username);
  if (clash !== undefined && clash.configUsername !== account.configUsername) {
    throw new GatewayError("username_taken", "username is in use");
  }
  const next: Account = {
    ...latest,
    username,
    passwordHash,
    authRevision: latest.authRevision + 1,
  };
  const outcome = await deps.accounts.commit(next, latest.authRevision);
  if (outcome === "username_taken") throw new GatewayError("username_taken", "username is in use");
  if (outcome === "conflict") {
    throw new GatewayError("conflict", "credentials changed concurrently; log in again");
  }
  return next;
}
