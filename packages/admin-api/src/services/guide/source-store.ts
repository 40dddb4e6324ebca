import { GatewayError } from "@svc/core/errors";
import type { GuideRepository, GuideSourceRow } from "../../storage/guide/repository.js";
import { parseIfMatch } from "../if-match.js";
import { GUIDE_PRESETS, type GuidePreset, PRESET_BY_ID } from "./presets.js";
import type { SourceCreateBody, SourceUpdateBody } from "./source-body.js";

/** A guide source as the API shows it: preset values with the operator's changes applied. */
export interface GuideSource extends GuidePreset {
  readonly preset: boolean;
  readonly revision: number;
  /** Epoch ms; 0 for an untouched preset. */
  readonly updatedAt: number;
}

type Row = GuideSourceRow;
const FIELDS = ["name", "url", "timezone", "proxy", "enabled"] as const;

function effective(row: Row | undefined, preset: GuidePreset | undefined): GuideSource | undefined {
  if (row?.hidden) return undefined;
  if (preset !== undefined) {
    return {
      id: preset.id,
      name: row?.name ?? preset.name,
      url: row?.url ?? preset.url,
      timezone: row?.timezone ?? preset.timezone,
      proxy: row?.proxy ?? preset.proxy,
      enabled: row?.enabled ?? preset.enabled,
      preset: true,
      revision: row?.revision ?? 1,
      updatedAt: row?.updatedAt ?? 0,
    };
  }
  if (row === undefined) return undefined;
  return {
    id: row.id,
    name: row.name ?? row.id,
    url: row.url ?? "",
    timezone: row.timezone ?? "UTC",
    proxy: row.proxy ?? "direct",
    enabled: row.enabled ?? true,
    preset: false,
    revision: row.revision,
    updatedAt: row.updatedAt,
  };
}

/** Spec "Concurrency headers": guide-source writes need `If-Match`; missing is 428. */
function checkIfMatch(header: string | undefined, current: number, required: boolean): void {
  const wanted = parseIfMatch(header);
  if (wanted === undefined) {
    if (required)
      throw new GatewayError("conflict", "If-Match revision is required", { status: 428 });
    return;
  }
  if (wanted !== current)
    throw new GatewayError("conflict", `revision mismatch: current revision is ${current}`);
}

export interface GuideSourceStore {
  /** Visible sources: custom ones in creation order, then presets. */
  list(): GuideSource[];
  get(id: string): GuideSource | undefined;
  create(body: SourceCreateBody): Promise<GuideSource>;
  update(id: string, ifMatch: string | undefined, body: SourceUpdateBody): Promise<GuideSource>;
  /** Removes a custom source, hides a preset; reports which. */
  remove(id: string, ifMatch: string | undefined): Promise<{ removed: boolean }>;
  /** Re-reads every stored row (another instance wrote); idempotent. */
  reload(): Promise<void>;
}

/**
 * The guide sources, mirrored in memory (reads never wait on the database).
 * A write goes through the repository first, conditional on the revision the
 * mirror holds, so a change another instance made in between is a 409, never
 * a lost update; the mirror then takes the written row.
 */
export async function openGuideSourceStore(repo: GuideRepository): Promise<GuideSourceStore> {
  let rows = new Map<string, Row>();
  const rowOf = (id: string) => rows.get(id);
  const nextPosition = () => Math.max(0, ...[...rows.values()].map((r) => r.position)) + 1;

  /** Stores a preset's fields only where they differ from the preset (null = preset value). */
  const presetColumns = (
    preset: GuidePreset,
    source: Omit<GuideSource, "revision" | "updatedAt">,
  ) => {
    const out: Record<(typeof FIELDS)[number], string | boolean | null> = {
      name: null,
      url: null,
      timezone: null,
      proxy: null,
      enabled: null,
    };
    for (const f of FIELDS) out[f] = source[f] === preset[f] ? null : source[f];
    return out as {
      name: string | null;
      url: string | null;
      timezone: string | null;
      proxy: string | null;
      enabled: boolean | null;
    };
  };

  /**
   * Writes `row` over the stored `before` (undefined: none); when another
   * writer got there first, the mirror is refreshed and the write refused.
   */
  async function save(row: Row, before: Row | undefined): Promise<GuideSource> {
    if (!(await repo.saveSource(row, before?.revision))) throw await changedMeanwhile(row.id);
    rows.set(row.id, row);
    return store.get(row.id)!;
  }
  async function changedMeanwhile(id: string): Promise<GatewayError> {
    await store.reload();
    const now = store.get(id);
    return now === undefined
      ? new GatewayError("not_found", `guide source ${id} not found`)
      : new GatewayError("conflict", `revision mismatch: current revision is ${now.revision}`);
  }

  const store: GuideSourceStore = {
    list() {
      const custom = [...rows.values()]
        .filter((r) => !PRESET_BY_ID.has(r.id))
        .sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1))
        .map((r) => effective(r, undefined))
        .filter((s) => s !== undefined);
      const presets = GUIDE_PRESETS.map((p) => effective(rows.get(p.id), p)).filter(
        (s) => s !== undefined,
      );
      return [...custom, ...presets];
    },
    get: (id) => effective(rowOf(id), PRESET_BY_ID.get(id)),
    async create(body) {
      const preset = PRESET_BY_ID.get(body.id);
      const row = rowOf(body.id);
      if (effective(row, preset) !== undefined)
        throw new GatewayError("conflict", `guide source ${body.id} already exists`);
      const now = Date.now();
      if (preset !== undefined) {
        // A hidden preset comes back, with the submitted fields as its changes.
        const merged = { ...preset, ...stripUndefined(body), preset: true };
        return save(
          {
            id: body.id,
            preset: true,
            ...presetColumns(preset, merged),
            hidden: false,
            position: row?.position ?? 0,
            revision: (row?.revision ?? 1) + 1,
            updatedAt: now,
          },
          row,
        );
      }
      if (body.url === undefined) throw new GatewayError("invalid_request", "url: required");
      const next: Row = {
        id: body.id,
        preset: false,
        name: body.name ?? body.id,
        url: body.url,
        timezone: body.timezone ?? "UTC",
        proxy: body.proxy ?? "direct",
        enabled: body.enabled ?? true,
        hidden: false,
        position: nextPosition(),
        revision: row === undefined ? 1 : row.revision + 1,
        updatedAt: now,
      };
      if (!(await repo.saveSource(next, row?.revision))) {
        await store.reload();
        throw new GatewayError("conflict", `guide source ${body.id} already exists`);
      }
      rows.set(next.id, next);
      return store.get(next.id)!;
    },
    async update(id, ifMatch, body) {
      const preset = PRESET_BY_ID.get(id);
      const row = rowOf(id);
      const current = effective(row, preset);
      if (current === undefined)
        throw new GatewayError("not_found", `guide source ${id} not found`);
      checkIfMatch(ifMatch, current.revision, true);
      if (body.id !== undefined && body.id !== id)
        throw new GatewayError("invalid_request", "id: does not match the path");
      const merged = { ...current, ...stripUndefined(body), id };
      const base = {
        id,
        hidden: false,
        position: row?.position ?? 0,
        revision: current.revision + 1,
        updatedAt: Date.now(),
      };
      if (preset !== undefined)
        return save({ ...base, preset: true, ...presetColumns(preset, merged) }, row);
      return save(
        {
          ...base,
          preset: false,
          name: merged.name,
          url: merged.url,
          timezone: merged.timezone,
          proxy: merged.proxy,
          enabled: merged.enabled,
        },
        row,
      );
    },
    async remove(id, ifMatch) {
      const preset = PRESET_BY_ID.get(id);
      const row = rowOf(id);
      const current = effective(row, preset);
      if (current === undefined)
        throw new GatewayError("not_found", `guide source ${id} not found`);
      // Spec "Guide": If-Match is required except for presets (validated when sent).
      checkIfMatch(ifMatch, current.revision, preset === undefined);
      if (preset === undefined) {
        if (!(await repo.deleteSource(id, current.revision))) throw await changedMeanwhile(id);
        rows.delete(id);
        return { removed: true };
      }
      const hidden: Row = {
        id,
        preset: true,
        name: row?.name ?? null,
        url: row?.url ?? null,
        timezone: row?.timezone ?? null,
        proxy: row?.proxy ?? null,
        enabled: row?.enabled ?? null,
        hidden: true,
        position: row?.position ?? 0,
        revision: current.revision + 1,
        updatedAt: Date.now(),
      };
      await save(hidden, row);
      return { removed: false };
    },
    async reload() {
      rows = new Map((await repo.sources()).map((r) => [r.id, r]));
    },
  };
  await store.reload();
  return store;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
