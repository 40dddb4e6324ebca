import type { Egress } from "@svc/core/egress";
import type { GuideData, ProgrammeWriter, SourceStatusRow } from "./guide-data.js";
import { type DownloadLimits, downloadGuide, GuideDownloadError } from "./guide-download.js";
import type { GuideSource } from "./source-store.js";
import {
  createXmltvReader,
  detachString,
  type GuideChannelRecord,
  MAX_NAMES,
  type ProgrammeRecord,
  XmltvError,
} from "./xmltv-reader.js";

export interface ImportDeps {
  readonly egress: Egress;
  readonly data: GuideData;
  readonly limits: DownloadLimits;
  readonly userAgent: string;
  /** Aborted at shutdown. */
  readonly signal: AbortSignal;
}

/** One download may take this long in all (the egress bounds each silence on its own). */
const DOWNLOAD_DEADLINE_MS = 15 * 60_000;
/**
 * XML read per write (~900 programmes of a typical guide): SQLite commits (no
 * fsync, see ProgrammeWriter.write) cost little at that size, PostgreSQL gets
 * one multi-row insert, and a piece is dropped right after it is parsed, so its
 * bytes die young (a Buffer that lives through two scavenges is only freed by a
 * full GC: +60 MiB of RSS per 200 MB).
 */
const TRANSACTION_XML_BYTES = 256 * 1024;
/** More `<channel>` elements than any real guide has: the staging map stays bounded. */
const MAX_CHANNELS = 500_000;

/**
 * Refreshes one source, claimed by this instance for a refresh that started at
 * `attempt` (epoch ms): a conditional download, one streaming parse straight
 * into a new generation of rows, and a switch to it only once the whole
 * document was read. On any failure the new rows are dropped and the last good
 * generation stays, with the status marked `stale` (docs/guide.md "Refresh").
 */
export async function importSource(
  deps: ImportDeps,
  source: GuideSource,
  attempt: number,
): Promise<SourceStatusRow> {
  const prev = deps.data.status(source.id);
  const generation = Math.max(attempt, (prev.generation ?? 0) + 1);
  // Opened before the download, so a database that cannot take the rows fails
  // the attempt before anything is fetched; held until closed (on PostgreSQL a
  // connection), closed whatever happens.
  const writer = await deps.data.openProgrammeWriter(source.id, generation);
  let read: Awaited<ReturnType<typeof readDocument>>;
  try {
    read = await readDocument(deps, source, attempt, prev, writer);
  } finally {
    await writer.close();
  }
  const { data } = deps;
  const failed = (error: string) => {
    void data.dropGeneration(source.id, generation);
    return data.recordFailure(source.id, attempt, error);
  };
  if (!read.ok) return read.notModified ? read.status : failed(read.error);
  const { dl, channels, summary } = read;
  const programmes = writer.stored;
  if (channels.size === 0 && programmes === 0)
    return failed("the document holds no channel and no programme");
  const switched = await data.switchGeneration([...channels.values()], {
    sourceId: source.id,
    lastAttempt: attempt,
    lastSuccess: Date.now(),
    stale: false,
    error: null,
    channelCount: channels.size,
    programmeCount: programmes,
    generation,
    etag: dl.etag,
    lastModified: dl.lastModified,
    metadata: {
      ...summary.metadata,
      bytes: dl.counters.received,
      xml_bytes: dl.counters.xml,
      gzip: dl.counters.gzipLayers > 0,
      skipped_elements: summary.skipped,
      not_modified: false,
    },
  });
  if (switched === undefined) {
    // Another instance switched to a newer generation while this one was read.
    void data.dropGeneration(source.id, generation);
    return data.status(source.id);
  }
  // Older generations, including a refresh of another instance still being
  // written below this one: its switch can no longer succeed.
  void data.purgeOld(source.id, generation);
  return switched;
}

/** Downloads the document and parses it into `writer`; records a "not modified" answer. */
async function readDocument(
  deps: ImportDeps,
  source: GuideSource,
  attempt: number,
  prev: SourceStatusRow,
  writer: ProgrammeWriter,
) {
  const dl = await downloadGuide(
    deps.egress,
    {
      url: source.url,
      // Validators only apply to the copy we still hold.
      etag: prev.generation === null ? null : prev.etag,
      lastModified: prev.generation === null ? null : prev.lastModified,
      userAgent: deps.userAgent,
      proxy: source.proxy,
      signal: AbortSignal.any([deps.signal, AbortSignal.timeout(DOWNLOAD_DEADLINE_MS)]),
    },
    deps.limits,
  );
  if (!dl.ok) return { ok: false, notModified: false, error: dl.error } as const;
  if (dl.notModified) {
    const s = await deps.data.recordNotModified(source.id, attempt, {
      ...prev.metadata,
      not_modified: true,
    });
    return { ok: false, notModified: true, status: s ?? deps.data.status(source.id) } as const;
  }

  const channels = new Map<string, GuideChannelRecord>();
  const addChannel = (c: GuideChannelRecord) => {
    const seen = channels.get(c.id);
    if (seen === undefined && channels.size >= MAX_CHANNELS)
      throw new XmltvError(`more than ${MAX_CHANNELS} channels`);
    channels.set(c.id, seen === undefined ? c : mergeChannel(seen, c));
  };
  // Channels programmes name without a `<channel>` element (documents with
  // none at all are common): they become guide channels without names, matched
  // by `epg_id` (docs/guide.md "Parsing").
  const undeclared = new Set<string>();
  let insert: ((p: ProgrammeRecord) => void) | undefined;
  const reader = createXmltvReader(source.timezone, {
    channel: addChannel,
    programme(p) {
      if (!channels.has(p.channel) && !undeclared.has(p.channel)) {
        if (channels.size + undeclared.size >= MAX_CHANNELS)
          throw new XmltvError(`more than ${MAX_CHANNELS} channels`);
        // Kept to the document's end: a copy, not a slice of the parsed piece.
        undeclared.add(detachString(p.channel));
      }
      insert!(p);
    },
  });
  // Decompressed pieces wait here (at most ~256 KiB) and are parsed together in
  // one write: each programme goes to the database as soon as it is read.
  let pending: (Buffer | undefined)[] = [];
  let pendingBytes = 0;
  const parsePending = () => {
    const pieces = pending;
    pending = [];
    pendingBytes = 0;
    return writer.write((put) => {
      insert = put;
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i];
        pieces[i] = undefined;
        if (piece !== undefined) reader.write(piece);
      }
    });
  };
  try {
    for await (const chunk of dl.xml) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= TRANSACTION_XML_BYTES) await parsePending();
    }
    await parsePending();
    const summary = await writer.write((put) => {
      insert = put;
      return reader.close();
    });
    for (const id of undeclared)
      if (!channels.has(id)) channels.set(id, { id, displayNames: [], icon: "" });
    return { ok: true, dl, channels, summary } as const;
  } catch (err) {
    return { ok: false, notModified: false, error: describe(err) } as const;
  }
}

/**
 * A channel declared twice (documents concatenated from several grabbers):
 * one guide channel with the names of both, the first icon.
 */
function mergeChannel(a: GuideChannelRecord, b: GuideChannelRecord): GuideChannelRecord {
  return {
    id: a.id,
    displayNames: [...new Set([...a.displayNames, ...b.displayNames])].slice(0, MAX_NAMES),
    icon: a.icon === "" ? b.icon : a.icon,
  };
}

function describe(err: unknown): string {
  if (err instanceof XmltvError || err instanceof GuideDownloadError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "UND_ERR_BODY_TIMEOUT" || (err as Error)?.name === "TimeoutError")
    return "download timed out";
  return typeof code === "string" ? `download failed (${code})` : "download failed";
}
