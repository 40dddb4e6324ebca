import { GatewayError } from "@svc/core/errors";
import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { guideSources } from "../../db/schema/index.js";
import { parseIfMatch } from "../../http/if-match.js";
import { GUIDE_PRESETS, type GuidePreset, PRESET_BY_ID } from "./presets.js";
import type { SourceCreateBody, SourceUpdateBody } from "./source-body.js";

/** A guide source as the API shows it: preset values with the operator's changes applied. */
export interface GuideSource {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly timezone: string;
  readonly proxy: string;
  readonly enabled: boolean;
  readonly preset: boolean;
  readonly revision: number;
  /** Epoch ms; 0 for an untouched preset. */
  readonly updatedAt: number;
}

type Row = typeof guideSources.$inferSelect;
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
  create(body: SourceCreateBody): GuideSource;
  update(id: string, ifMatch: string | undefined, body: SourceUpdateBody): GuideSource;
  /** Removes a custom source, hides a preset; reports which. */
  remove(id: string, ifMatch: string | undefined): { removed: boolean };
}

export function createGuideSourceStore(db: StateDb): GuideSourceStore {
  const rowOf = (id: string) => db.select().from(guideSources).where(eq(guideSources.id, id)).get();
  const nextPosition = () =>
    Math.max(
      0,
      ...db
        .select({ p: guideSources.position })
        .from(guideSources)
        .all()
        .map((r) => r.p),
    ) + 1;

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

  const store: GuideSourceStore = {
    list() {
      const rows = new Map(
        db
          .select()
          .from(guideSources)
          .all()
          .map((r) => [r.id, r]),
      );
      const custom = [...rows.values()]
        .filter((r) => !PRESET_BY_ID.has(r.id))
        .sort((a, b) => a.position - b.position)
        .map((r) => effective(r, undefined))
        .filter((s) => s !== undefined);
      const presets = GUIDE_PRESETS.map((p) => effective(rows.get(p.id), p)).filter(
        (s) => s !== undefined,
      );
      return [...custom, ...presets];
    },
    get: (id) => effective(rowOf(id), PRESET_BY_ID.get(id)),
    create(body) {
      const preset = PRESET_BY_ID.get(body.id);
      const row = rowOf(body.id);
      if (effective(row, preset) !== undefined)
        throw new GatewayError("conflict", `guide source ${body.id} already exists`);
      const now = Date.now();
      if (preset !== undefined) {
        // A hidden preset comes back, with the submitted fields as its changes.
        const merged = { ...preset, ...stripUndefined(body), preset: true };
        const cols = presetColumns(preset, merged);
        const revision = (row?.revision ?? 1) + 1;
        db.update(guideSources)
          .set({ ...cols, hidden: false, revision, updatedAt: now })
          .where(eq(guideSources.id, body.id))
          .run();
        return store.get(body.id)!;
      }
      if (body.url === undefined) throw new GatewayError("invalid_request", "url: required");
      db.insert(guideSources)
        .values({
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
        })
        .onConflictDoNothing()
        .run();
      return store.get(body.id)!;
    },
    update(id, ifMatch, body) {
      const preset = PRESET_BY_ID.get(id);
      const row = rowOf(id);
      const current = effective(row, preset);
      if (current === undefined)
        throw new GatewayError("not_found", `guide source ${id} not found`);
      checkIfMatch(ifMatch, current.revision, true);
      if (body.id !== undefined && body.id !== id)
        throw new GatewayError("invalid_request", "id: does not match the path");
      const merged = { ...current, ...stripUndefined(body), id };
      const now = Date.now();
      const revision = current.revision + 1;
      if (preset !== undefined) {
        const cols = presetColumns(preset, merged);
        db.insert(guideSources)
          .values({
            id,
            preset: true,
            ...cols,
            hidden: false,
            position: 0,
            revision,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: guideSources.id,
            set: { ...cols, revision, updatedAt: now },
          })
          .run();
      } else {
        db.update(guideSources)
          .set({
            name: merged.name,
            url: merged.url,
            timezone: merged.timezone,
            proxy: merged.proxy,
            enabled: merged.enabled,
            revision,
            updatedAt: now,
          })
          .where(eq(guideSources.id, id))
          .run();
      }
      return store.get(id)!;
    },
    remove(id, ifMatch) {
      const preset = PRESET_BY_ID.get(id);
      const row = rowOf(id);
      const current = effective(row, preset);
      if (current === undefined)
        throw new GatewayError("not_found", `guide source ${id} not found`);
      // Spec "Guide": If-Match is required except for presets (validated when sent).
      checkIfMatch(ifMatch, current.revision, preset === undefined);
      if (preset === undefined) {
        db.delete(guideSources).where(eq(guideSources.id, id)).run();
        return { removed: true };
      }
      const now = Date.now();
      const revision = current.revision + 1;
      db.insert(guideSources)
        .values({ id, preset: true, hidden: true, position: 0, revision, updatedAt: now })
        .onConflictDoUpdate({
          target: guideSources.id,
          set: { hidden: true, revision, updatedAt: now },
        })
        .run();
      return { removed: false };
    },
  };
  return store;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
