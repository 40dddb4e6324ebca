import type { Egress } from "@svc/core/egress";
import type { GuideData, SourceStatusRow } from "./guide-data.js";
import { type DownloadLimits, downloadGuide, GuideDownloadError } from "./guide-download.js";
import type { GuideSource } from "./source-store.js";
import { createXmltvReader, type GuideChannelRecord, XmltvError } from "./xmltv-reader.js";

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
 * XML read per transaction (~900 programmes of a typical guide): commits (no
 * fsync, see GuideData.importing) cost little at that size, and a piece is
 * dropped right after it is parsed, so its bytes die young (a Buffer that lives
 * through two scavenges is only freed by a full GC: +60 MiB of RSS per 200 MB).
 */
const TRANSACTION_XML_BYTES = 256 * 1024;
/** More `<channel>` elements than any real guide has: the staging map stays bounded. */
const MAX_CHANNELS = 500_000;

/**
 * Refreshes one source: a conditional download, one streaming parse straight
 * into a new generation of rows, and a switch to it only once the whole
 * document was read. On any failure the new rows are dropped and the last good
 * generation stays, with the status marked `stale` (docs/guide.md "Refresh").
 */
export async function importSource(
  deps: ImportDeps,
  source: GuideSource,
): Promise<SourceStatusRow> {
  const { data } = deps;
  const prev = data.status(source.id);
  const attempt = Date.now();
  const failed = (error: string): SourceStatusRow => {
    const s = { ...prev, lastAttempt: attempt, stale: prev.generation !== null, error };
    data.writeStatus(s);
    return s;
  };
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
  if (!dl.ok) return failed(dl.error);
  if (dl.notModified) {
    const s = {
      ...prev,
      lastAttempt: attempt,
      lastSuccess: attempt,
      stale: false,
      error: null,
      metadata: { ...prev.metadata, not_modified: true },
    };
    data.writeStatus(s);
    return s;
  }

  const generation = Math.max(attempt, (prev.generation ?? 0) + 1);
  const channels = new Map<string, GuideChannelRecord>();
  let programmes = 0;
  const reader = createXmltvReader(source.timezone, {
    channel(c) {
      if (channels.size >= MAX_CHANNELS && !channels.has(c.id))
        throw new XmltvError(`more than ${MAX_CHANNELS} channels`);
      channels.set(c.id, c);
    },
    programme(p) {
      programmes += data.insertProgramme(source.id, generation, p);
    },
  });
  // Decompressed pieces wait here (at most ~256 KiB) and are parsed together in
  // one transaction: each programme goes to SQLite as soon as it is read.
  let pending: (Buffer | undefined)[] = [];
  let pendingBytes = 0;
  const parsePending = () => {
    const pieces = pending;
    pending = [];
    pendingBytes = 0;
    data.importing(() => {
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i];
        pieces[i] = undefined;
        if (piece !== undefined) reader.write(piece);
      }
    });
  };
  let summary: { metadata: Record<string, string>; skipped: number };
  try {
    for await (const chunk of dl.xml) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= TRANSACTION_XML_BYTES) parsePending();
    }
    parsePending();
    summary = data.importing(() => reader.close());
  } catch (err) {
    void data.purgeOld(source.id, generation + 1, prev.generation);
    return failed(describe(err));
  }
  if (channels.size === 0 && programmes === 0) {
    void data.purgeOld(source.id, generation + 1, prev.generation);
    return failed("the document holds no channel and no programme");
  }
  const status: SourceStatusRow = {
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
  };
  data.commit([...channels.values()], status);
  void data.purgeOld(source.id, generation);
  return status;
}

function describe(err: unknown): string {
  if (err instanceof XmltvError || err instanceof GuideDownloadError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "UND_ERR_BODY_TIMEOUT" || (err as Error)?.name === "TimeoutError")
    return "download timed out";
  return typeof code === "string" ? `download failed (${code})` : "download failed";
}
