import { type Account, type AccountDirectory, accountsFromConfig } from "@svc/core/auth";
import type { GatewayConfig } from "@svc/core/config";
import type { StateDb } from "../../db/client.js";
import { credentialOverrides } from "../../db/schema/index.js";

/** The full build's accounts: `auth.users` with the stored overrides applied. */
export interface MutableAccountDirectory extends AccountDirectory {
  /** Replaces one account after its override was committed. */
  replace(account: Account): void;
}

/**
 * Loads overrides keyed by the config username (spec "Configured user") and
 * applies them over the config entries. An override for a user no longer in
 * the config is ignored; the config file is never rewritten.
 */
export function createAccountDirectory(
  config: GatewayConfig,
  db: StateDb,
): MutableAccountDirectory {
  const overrides = new Map(
    db
      .select()
      .from(credentialOverrides)
      .all()
      .map((o) => [o.configUsername, o]),
  );
  const accounts = new Map<string, Account>();
  for (const base of accountsFromConfig(config)) {
    const o = overrides.get(base.configUsername);
    accounts.set(
      base.configUsername,
      o === undefined
        ? base
        : {
            ...base,
            username: o.username,
            passwordHash: o.passwordHash,
            authRevision: o.authRevision,
          },
    );
  }
  let byName = new Map<string, Account>();
  const reindex = () => {
    byName = new Map([...accounts.values()].map((a) => [a.username, a]));
  };
  reindex();
  return {
    find: (username) => byName.get(username),
    list: () => [...accounts.values()],
    byConfigUsername: (name) => accounts.get(name),
    replace(account) {
      accounts.set(account.configUsername, account);
      reindex();
    },
  };
}
