import type { GatewayConfig } from "@svc/core/config";
import type { Egress } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { IMPORT_BODY_MULTIPLIER } from "@svc/core/http";
import type { Logger } from "@svc/core/log";
import type {
  M3uSourceRepository,
  M3uSourceRow,
  M3uSourceStatusRow,
} from "../../storage/m3u-sources/repository.js";
import type { ChannelStore } from "../channels/channel-store.js";
import { parseIfMatch } from "../if-match.js";
import { createM3uSyncer } from "./m3u-syncer.js";
import type { M3uSourceCreateBody, M3uSourceUpdateBody } from "./source-body.js";

export interface M3uSourceServiceDeps {
  readonly config: GatewayConfig;
  readonly repository: M3uSourceRepository;
  readonly channels: ChannelStore;
  readonly egress: Egress;
  readonly userAgent: string;
  readonly log: Logger;
}

const DEFAULT_INTERVAL_MIN = 60;

const iso = (ms: number | null) =>
  ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The `m3u_sources` resource (extensions.md "M3U provider sources"). */
export function renderM3uSource(s: M3uSourceRow) {
  return {
    id: s.id,
    name: s.name,
    url: s.url,
    enabled: s.enabled,
    refresh_interval_min: s.refreshIntervalMin,
    upstream: s.upstream,
    group_filter: s.groupFilter,
    remove_missing: s.removeMissing,
    revision: s.revision,
    updated_at: iso(s.updatedAt),
  };
}

/** The status entry of extensions.md; a source never attempted has nulls and zeros. */
export function renderM3uStatus(id: string, s: M3uSourceStatusRow | undefined) {
  return {
    source_id: id,
    last_attempt: iso(s?.lastAttempt ?? null),
    last_success: iso(s?.lastSuccess ?? null),
    error: s?.error ?? null,
    created: s?.created ?? 0,
    updated: s?.updated ?? 0,
    disabled: s?.disabled ?? 0,
    skipped: s?.skipped ?? 0,
  };
}

/** Spec "Concurrency headers", as for guide sources: `If-Match` required, missing is 428. */
function checkIfMatch(header: string | undefined, current: number): void {
  const wanted = parseIfMatch(header);
  if (wanted === undefined)
    throw new GatewayError("conflict", "If-Match revision is required", { status: 428 });
  if (wanted !== current)
    throw new GatewayError("conflict", `revision mismatch: current revision is ${current}`);
}

/**
 * M3U provider sources: the resource's rules (here) and the syncs (`m3u-syncer.ts`). The
 * rows are read from the database on every request, never mirrored, so every instance of a
 * cluster answers the same.
 */
export function createM3uSourceService(deps: M3uSourceServiceDeps) {
  const { repository: repo, config } = deps;
  const upstreams = new Map(config.upstreams.map((u) => [u.id, u.base_url]));

  /** The address the list is fetched from; a problem is a 400 naming the field. */
  function listUrl(row: Pick<M3uSourceRow, "url" | "upstream">): string {
    const base = row.upstream === "" ? undefined : upstreams.get(row.upstream);
    if (row.upstream !== "" && base === undefined)
      throw new GatewayError("invalid_request", `upstream: unknown upstream "${row.upstream}"`);
    let u: URL;
    try {
      u = new URL(row.url, base);
    } catch {
      throw new GatewayError(
        "invalid_request",
        "url: must be an absolute http or https URL (or a path under the upstream)",
      );
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new GatewayError("invalid_request", "url: must be an http or https URL");
    return u.toString();
  }

  const syncer = createM3uSyncer({
    repository: repo,
    channels: deps.channels,
    egress: deps.egress,
    userAgent: deps.userAgent,
    maxBytes: config.security.max_body_bytes * IMPORT_BODY_MULTIPLIER,
    listUrl,
    log: deps.log,
  });

  async function existing(id: string): Promise<M3uSourceRow> {
    const row = await repo.get(id);
    if (row === undefined) throw new GatewayError("not_found", `m3u source ${id} not found`);
    return row;
  }
  async function changedMeanwhile(id: string): Promise<GatewayError> {
    const now = await repo.get(id);
    return now === undefined
      ? new GatewayError("not_found", `m3u source ${id} not found`)
      : new GatewayError("conflict", `revision mismatch: current revision is ${now.revision}`);
  }

  return {
    list: () => repo.list(),
    get: existing,
    async statuses() {
      const rows = new Map((await repo.statuses()).map((s) => [s.sourceId, s]));
      return (await repo.list()).map((s) => renderM3uStatus(s.id, rows.get(s.id)));
    },
    async create(body: M3uSourceCreateBody): Promise<M3uSourceRow> {
      const all = await repo.list();
      const row: M3uSourceRow = {
        id: body.id,
        name: body.name ?? body.id,
        url: body.url,
        enabled: body.enabled ?? true,
        refreshIntervalMin: body.refresh_interval_min ?? DEFAULT_INTERVAL_MIN,
        upstream: body.upstream ?? "",
        groupFilter: body.group_filter ?? [],
        removeMissing: body.remove_missing ?? false,
        position: Math.max(0, ...all.map((s) => s.position)) + 1,
        revision: 1,
        updatedAt: Date.now(),
      };
      listUrl(row);
      if (!(await repo.save(row, undefined)))
        throw new GatewayError("conflict", `m3u source ${body.id} already exists`);
      // A new source starts without the status (and validators) of an earlier one of its id.
      await repo.forgetStatus(row.id);
      return row;
    },
    async update(id: string, ifMatch: string | undefined, body: M3uSourceUpdateBody) {
      const before = await existing(id);
      checkIfMatch(ifMatch, before.revision);
      if (body.id !== undefined && body.id !== id)
        throw new GatewayError("invalid_request", "id: does not match the path");
      const row: M3uSourceRow = {
        ...before,
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.url === undefined ? {} : { url: body.url }),
        ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
        ...(body.refresh_interval_min === undefined
          ? {}
          : { refreshIntervalMin: body.refresh_interval_min }),
        ...(body.upstream === undefined ? {} : { upstream: body.upstream }),
        ...(body.group_filter === undefined ? {} : { groupFilter: body.group_filter }),
        ...(body.remove_missing === undefined ? {} : { removeMissing: body.remove_missing }),
        revision: before.revision + 1,
        updatedAt: Date.now(),
      };
      listUrl(row);
      if (!(await repo.save(row, before.revision))) throw await changedMeanwhile(id);
      // A new address, filter or removal rule: the next sync downloads and applies in full.
      await repo.clearValidators(id);
      return row;
    },
    /** Deletes the source; its channels stay, no longer owned by any source. */
    async remove(id: string, ifMatch: string | undefined): Promise<void> {
      const before = await existing(id);
      checkIfMatch(ifMatch, before.revision);
      if (!(await repo.remove(id, before.revision))) throw await changedMeanwhile(id);
      await syncer.release(id);
    },
    /** Syncs one source now (whether enabled or not); resolves with its status entry. */
    async refresh(id: string) {
      const row = await existing(id);
      await syncer.syncNow(row);
      return renderM3uStatus(id, await repo.status(id));
    },
    /** Starts the schedule (docs/m3u-sources.md "Schedule"). */
    start: () => syncer.start(),
    close: () => syncer.close(),
  };
}

export type M3uSourceService = ReturnType<typeof createM3uSourceService>;
