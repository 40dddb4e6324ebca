import type { guideChannels, guideSourceStatus, guideSources } from "../../db/schema/index.js";

/**
 * A stored `guide_sources` row (db/tables/guide-sources.ts): every field of a
 * custom source, or only the fields an operator changed on a built-in preset
 * (null = the preset's value).
 */
export type GuideSourceRow = Readonly<typeof guideSources.$inferSelect>;

/** Refresh state of one source as stored (spec "Guide source", status entry; db/tables/guide-source-status.ts). */
export type SourceStatusRow = Readonly<typeof guideSourceStatus.$inferSelect>;

/** A guide channel with its source, for matching and logos (db/tables/guide-channels.ts). */
export type StoredGuideChannel = Readonly<typeof guideChannels.$inferSelect>;

/** One stored programme of a guide channel. */
export interface ProgrammeRow {
  /** UTC instants, epoch seconds. */
  readonly start: number;
  readonly stop: number | null;
  /** The element's content, already rendered as XMLTV. */
  readonly body: string;
}

/** A `<channel>` of a document being switched to (the XMLTV reader's record). */
export interface GuideChannelInput {
  readonly id: string;
  readonly displayNames: readonly string[];
  readonly icon: string;
}

/** A `<programme>` as the XMLTV reader hands it over. */
export interface ProgrammeInput {
  /** The guide channel's XMLTV id. */
  readonly channel: string;
  readonly start: number;
  readonly stop: number | null;
  readonly body: string;
}

/**
 * Writes the programmes of one generation while its document is read
 * (docs/guide.md "Refresh"). Rows of a generation are invisible until
 * {@link GuideRepository.switchGeneration} names it.
 */
export interface ProgrammeWriter {
  /**
   * Runs `parse` synchronously, storing each programme it hands to `insert`,
   * and resolves with what `parse` returned once those rows are written. On
   * SQLite each call is one transaction and every programme is inserted as soon
   * as it is read; on PostgreSQL the call's programmes go out in multi-row
   * inserts after `parse` returns.
   */
  write<T>(parse: (insert: (p: ProgrammeInput) => void) => T): Promise<T>;
  /** Rows stored so far (a second programme of a channel at the same start is dropped). */
  readonly stored: number;
  /** Releases what the import held; idempotent. */
  close(): Promise<void>;
}

/**
 * The guide's tables: sources, refresh state, guide channels and programme
 * generations. Writes of what the instances mirror (sources, statuses, the
 * switch to a generation) count as a change of the "guide" resource for the
 * change feed. Every method is safe against another instance writing the same
 * rows: revisions and generations are compared in the database, not in memory.
 */
export interface GuideRepository {
  /** Every stored source row, in no particular order. */
  sources(): Promise<GuideSourceRow[]>;
  /**
   * Stores `row` when the stored row of its id still has revision `expected`
   * (undefined: no row is stored); false when another writer changed it first.
   */
  saveSource(row: GuideSourceRow, expected: number | undefined): Promise<boolean>;
  /** Deletes the row when it still has revision `expected`; false otherwise. */
  deleteSource(id: string, expected: number): Promise<boolean>;

  /** Every stored status row. */
  statuses(): Promise<SourceStatusRow[]>;
  /**
   * Claims a source for a refresh starting at `attempt` (epoch ms): records the
   * attempt when the stored last attempt is null or at most `dueBefore`
   * (`null`: unconditionally). Undefined when another refresh claimed it later
   * than `dueBefore`: it is not due. One compare-and-set in the database, so
   * instances sharing it never both claim one interval.
   */
  claim(
    sourceId: string,
    attempt: number,
    dueBefore: number | null,
  ): Promise<SourceStatusRow | undefined>;
  /** Records a failed attempt: the data stays, `stale` when a generation exists. */
  recordFailure(sourceId: string, attempt: number, error: string): Promise<SourceStatusRow>;
  /** Records an attempt the source answered "not modified" (its data stays current). */
  recordNotModified(
    sourceId: string,
    attempt: number,
    metadata: Record<string, unknown>,
  ): Promise<SourceStatusRow | undefined>;
  /** Forgets the download validators (the source's URL changed). */
  clearValidators(sourceId: string): Promise<SourceStatusRow | undefined>;

  /** Starts writing the programmes of `generation` of a source. */
  openProgrammeWriter(sourceId: string, generation: number): Promise<ProgrammeWriter>;
  /**
   * Switches a source to a fully read generation in one transaction: its
   * channels (those absent from the document stay, `present` false) and its
   * status. Undefined, with nothing written, when the stored generation is
   * already this one or newer (another instance's refresh finished later).
   */
  switchGeneration(
    channels: readonly GuideChannelInput[],
    status: SourceStatusRow & { readonly generation: number },
  ): Promise<SourceStatusRow | undefined>;
  /** Deletes a removed source's channels and status (its programmes: {@link purge}). */
  forget(sourceId: string): Promise<void>;
  /**
   * Deletes the source's programmes of generations below `below` except
   * `keep`, in batches, without holding the database between two of them.
   */
  purge(sourceId: string, below: number, keep: number | null): Promise<void>;
  /** Deletes the rows of one generation (a refresh that failed or was superseded). */
  dropGeneration(sourceId: string, generation: number): Promise<void>;
  /** Source ids that have programme rows (leftovers of removed sources or crashes). */
  sourcesWithProgrammes(): Promise<string[]>;

  /** The guide channels of these sources. */
  channels(sourceIds: readonly string[]): Promise<StoredGuideChannel[]>;
  /**
   * The programmes of these guide channels of one generation, by start. One
   * call per batch of channels: epg.xml asks for a bounded batch at a time,
   * never for a whole generation.
   */
  programmes(
    sourceId: string,
    generation: number,
    xmltvIds: readonly string[],
  ): Promise<Map<string, ProgrammeRow[]>>;
  /** Stops background purges; before the database closes. */
  close(): void;
}

/** The programme rows' part of the repository: written per database (see `guide-repository.ts`). */
export type GuideProgrammes = Pick<
  GuideRepository,
  "openProgrammeWriter" | "purge" | "dropGeneration" | "programmes" | "close"
>;
