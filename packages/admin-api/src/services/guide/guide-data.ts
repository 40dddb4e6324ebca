import type {
  GuideChannelInput,
  GuideRepository,
  ProgrammeWriter,
  SourceStatusRow,
} from "../../storage/guide/repository.js";

export type {
  ProgrammeRow,
  ProgrammeWriter,
  SourceStatusRow,
  StoredGuideChannel,
} from "../../storage/guide/repository.js";

const emptyStatus = (sourceId: string): SourceStatusRow => ({
  sourceId,
  lastAttempt: null,
  lastSuccess: null,
  stale: false,
  error: null,
  channelCount: 0,
  programmeCount: 0,
  generation: null,
  etag: null,
  lastModified: null,
  metadata: {},
});

/**
 * The guide's stored data behind its repository, with the refresh state of
 * every source mirrored in memory: playlists, epg.xml's ETag and the status
 * listing read it synchronously. Each write goes to the database first and
 * then replaces the mirrored row with the one the database returned;
 * {@link GuideData.reload} re-reads them all (another instance wrote).
 */
export async function openGuideData(repo: GuideRepository) {
  let byId = new Map<string, SourceStatusRow>();
  const keep = (row: SourceStatusRow | undefined) => {
    if (row !== undefined) byId.set(row.sourceId, row);
    return row;
  };
  const data = {
    /** The stored state of a source (an empty one before its first attempt). */
    status: (sourceId: string): SourceStatusRow => byId.get(sourceId) ?? emptyStatus(sourceId),
    async reload(): Promise<void> {
      byId = new Map((await repo.statuses()).map((s) => [s.sourceId, s]));
    },
    /** See {@link GuideRepository.claim}: true when this refresh may run. */
    async claim(sourceId: string, attempt: number, dueBefore: number | null): Promise<boolean> {
      return keep(await repo.claim(sourceId, attempt, dueBefore)) !== undefined;
    },
    recordFailure: async (sourceId: string, attempt: number, error: string) =>
      keep(await repo.recordFailure(sourceId, attempt, error))!,
    recordNotModified: async (
      sourceId: string,
      attempt: number,
      metadata: Record<string, unknown>,
    ) => keep(await repo.recordNotModified(sourceId, attempt, metadata)),
    clearValidators: async (sourceId: string) => keep(await repo.clearValidators(sourceId)),
    openProgrammeWriter: (sourceId: string, generation: number): Promise<ProgrammeWriter> =>
      repo.openProgrammeWriter(sourceId, generation),
    /** Undefined when a newer generation was switched to meanwhile (nothing written). */
    switchGeneration: async (
      channels: readonly GuideChannelInput[],
      status: SourceStatusRow & { readonly generation: number },
    ) => keep(await repo.switchGeneration(channels, status)),
    async forget(sourceId: string): Promise<void> {
      await repo.forget(sourceId);
      byId.delete(sourceId);
    },
    /**
     * Deletes programmes of the generations below `below` except `keep`.
     * Generations are start times of their refresh (epoch ms, increasing per
     * source), and a switch only ever moves to a newer one.
     */
    purgeOld: (sourceId: string, below: number, keep: number | null = null) =>
      repo.purge(sourceId, below, keep),
    dropGeneration: (sourceId: string, generation: number) =>
      repo.dropGeneration(sourceId, generation),
    channels: (sourceIds: readonly string[]) => repo.channels(sourceIds),
    programmes: (sourceId: string, generation: number, xmltvIds: readonly string[]) =>
      repo.programmes(sourceId, generation, xmltvIds),
    sourcesWithProgrammes: () => repo.sourcesWithProgrammes(),
    /** Stops background purges; called before the database closes. */
    close: () => repo.close(),
  };
  await data.reload();
  return data;
}

export type GuideData = Awaited<ReturnType<typeof openGuideData>>;
