import { GatewayError } from "@svc/core/errors";
import type { CredentialRepository } from "../../storage/credentials/repository.js";
import { createSerialLock } from "../../storage/kernel/serial-lock.js";
import { DigestIndex, type DigestIndexed } from "./digest-index.js";

/** What a credential table's repository offers the mirror (API tokens, playback keys). */
type MirroredRepository<R> = Pick<
  CredentialRepository<R, never>,
  "list" | "insert" | "update" | "remove" | "lastUsed"
>;

/**
 * A credential table mirrored in memory: reads (`byDigest` on every request)
 * are map lookups and never wait on the database; writes commit through the
 * repository first and then change memory.
 */
export interface CredentialMirror<R> {
  get(id: string): R | undefined;
  byDigest(digest: string): R | undefined;
  /** By the second unique key the mirror was created with (see {@link DigestIndex}). */
  byName(name: string): R | undefined;
  list(): readonly R[];
  insert(record: R): Promise<void>;
  /**
   * Commits `record` over the stored revision the caller checked. When the
   * database holds another revision (another instance wrote first and this
   * mirror has not reloaded yet), the mirror reloads and the write is refused
   * like any stale `If-Match`: 409 `conflict`, or 404 when the record is gone.
   */
  replace(record: R, expectedRevision: number): Promise<void>;
  remove(id: string, expectedRevision: number): Promise<void>;
  /** Applies a `last_used_at` already committed by a usage batch; never moves it back. */
  noteUsed(id: string, at: number): void;
  /** Reads the committed `last_used_at` values (other instances record uses too), for listings. */
  refreshUsage(): Promise<void>;
  /** Re-reads the table and replaces the mirror (the change feed's reload); idempotent. */
  reload(): Promise<void>;
}

type Mirrored = DigestIndexed & { readonly revision: number };

/**
 * Loads the table and returns its mirror; `what` names the resource in 404 messages,
 * `nameOf` a second unique key to look records up by.
 */
export async function createCredentialMirror<R extends Mirrored>(
  repo: MirroredRepository<R>,
  what: string,
  nameOf?: (record: R) => string | null,
): Promise<CredentialMirror<R>> {
  let index = new DigestIndex<R>(await repo.list(), nameOf);
  const exclusive = createSerialLock();
  const load = async () => {
    const next = new DigestIndex<R>(await repo.list(), nameOf);
    // A use committed while the rows were read is kept: usage times only move forward.
    for (const old of index.list())
      if (old.lastUsedAt !== null) next.noteUsed(old.id, old.lastUsedAt);
    index = next;
  };
  const refused = async (id: string): Promise<never> => {
    await load();
    const current = index.get(id);
    if (current === undefined) throw new GatewayError("not_found", `no such ${what}`);
    throw new GatewayError(
      "conflict",
      `revision mismatch: current revision is ${current.revision}`,
    );
  };
  return {
    get: (id) => index.get(id),
    byDigest: (digest) => index.byDigest(digest),
    byName: (name) => index.byName(name),
    list: () => index.list(),
    insert: (record) =>
      exclusive(async () => {
        await repo.insert(record);
        index.put(record);
      }),
    replace: (record, expectedRevision) =>
      exclusive(async () => {
        if (!(await repo.update(record, expectedRevision))) return refused(record.id);
        const usedAt = index.get(record.id)?.lastUsedAt ?? null;
        index.put(record);
        if (usedAt !== null) index.noteUsed(record.id, usedAt);
      }),
    remove: (id, expectedRevision) =>
      exclusive(async () => {
        if (!(await repo.remove(id, expectedRevision))) return refused(id);
        index.delete(id);
      }),
    noteUsed: (id, at) => index.noteUsed(id, at),
    async refreshUsage() {
      for (const [id, at] of await repo.lastUsed()) index.noteUsed(id, at);
    },
    reload: () => exclusive(load),
  };
}
