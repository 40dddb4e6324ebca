import type { GatewayConfig } from "../config/load.js";

/** A login account: a configured user with any stored credential override applied. */
export interface Account {
  /** The username in the config file; overrides are keyed by it. */
  readonly configUsername: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly role: string;
  /** Empty: no channel restriction. */
  readonly channelIds: readonly string[];
  /** Incremented by each credential change; sessions carry it and die when it moves. */
  readonly authRevision: number;
}

/** Looks accounts up by their current username, or by their stable key. */
export interface AccountDirectory {
  find(username: string): Account | undefined;
  /**
   * Account by the username it has in the config file: the stable account key
   * sessions are bound to (a rename changes `username`, never this).
   */
  byConfigUsername(configUsername: string): Account | undefined;
  list(): readonly Account[];
}

/** Accounts straight from `auth.users` (the lite build, and the full build's starting point). */
export function accountsFromConfig(config: GatewayConfig): Account[] {
  return config.auth.users.map((u) => ({
    configUsername: u.username,
    username: u.username,
    passwordHash: u.password_hash,
    role: u.role,
    channelIds: u.channel_ids,
    authRevision: 0,
  }));
}

/** A fixed directory over a list of accounts. */
export function createStaticDirectory(accounts: readonly Account[]): AccountDirectory {
  const byName = new Map(accounts.map((a) => [a.username, a]));
  const byKey = new Map(accounts.map((a) => [a.configUsername, a]));
  return {
    find: (username) => byName.get(username),
    byConfigUsername: (key) => byKey.get(key),
    list: () => accounts,
  };
}
