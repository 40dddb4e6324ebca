import { type Account, type AccountDirectory, accountsFromConfig } from "@svc/core/auth";
import type { GatewayConfig } from "@svc/core/config";
import type {
  AccountsRepository,
  CredentialOverride,
  OverrideWrite,
} from "../../storage/accounts/repository.js";
import { createSerialLock } from "../../storage/kernel/serial-lock.js";

/** The full build's accounts: `auth.users` with the stored overrides applied. */
export interface MutableAccountDirectory extends AccountDirectory {
  /**
   * Commits the account's new credentials when its stored `auth_revision` is
   * still `expectedRevision`, then replaces it in memory. Anything but
   * "saved" leaves memory reloaded from the database.
   */
  commit(account: Account, expectedRevision: number): Promise<OverrideWrite>;
  /** Re-reads the overrides and rebuilds the directory (the change feed's reload); idempotent. */
  reload(): Promise<void>;
}

interface Directory {
  readonly byKey: ReadonlyMap<string, Account>;
  readonly byName: ReadonlyMap<string, Account>;
}

/**
 * Overrides are keyed by the config username (spec "Configured user") and
 * applied over the config entries. An override for a user no longer in the
 * config is ignored; the config file is never rewritten.
 */
function build(config: GatewayConfig, overrides: readonly CredentialOverride[]): Directory {
  const stored = new Map(overrides.map((o) => [o.configUsername, o]));
  const byKey = new Map<string, Account>();
  for (const base of accountsFromConfig(config)) {
    const o = stored.get(base.configUsername);
    byKey.set(
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
  return { byKey, byName: new Map([...byKey.values()].map((a) => [a.username, a])) };
}

/**
 * Loads the directory. The credential gate and the playback authorizer read
 * it on every request (a changed credential is refused as soon as memory
 * changes: at once on this instance, after the change feed's reload on the
 * others).
 */
export async function createAccountDirectory(
  config: GatewayConfig,
  repo: AccountsRepository,
): Promise<MutableAccountDirectory> {
  let dir = build(config, await repo.overrides());
  const exclusive = createSerialLock();
  const load = async () => {
    dir = build(config, await repo.overrides());
  };
  return {
    find: (username) => dir.byName.get(username),
    list: () => [...dir.byKey.values()],
    byConfigUsername: (name) => dir.byKey.get(name),
    commit: (account, expectedRevision) =>
      exclusive(async () => {
        const outcome = await repo.saveOverride(
          {
            configUsername: account.configUsername,
            username: account.username,
            passwordHash: account.passwordHash,
            authRevision: account.authRevision,
            updatedAt: Date.now(),
          },
          expectedRevision,
        );
        if (outcome !== "saved") {
          await load();
          return outcome;
        }
        const byKey = new Map(dir.byKey);
        byKey.set(account.configUsername, account);
        dir = { byKey, byName: new Map([...byKey.values()].map((a) => [a.username, a])) };
        return outcome;
      }),
    reload: () => exclusive(load),
  };
}
