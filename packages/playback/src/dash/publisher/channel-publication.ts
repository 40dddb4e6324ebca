import type { MasterPlaylistInput } from "./master-playlist.js";
import { renderMasterPlaylist } from "./master-playlist.js";
import type { RenditionWindow } from "./rendition-window.js";

/** Stands for the absolute `…/{id}/` prefix of the request in the cached master playlist. */
export const PREFIX_MARK = "\u0002";

/**
 * Everything one generation of a channel's packager publishes: the master playlist
 * and one {@link RenditionWindow} per rendition, plus one change signal that wakes
 * every parked blocking-reload request on each publish event.
 */
export class ChannelPublication {
  readonly generation: string;
  readonly windows: ReadonlyMap<string, RenditionWindow>;
  private masterText: string | undefined;
  private waiters = new Set<() => void>();

  constructor(generation: string, windows: readonly RenditionWindow[]) {
    this.generation = generation;
    this.windows = new Map(windows.map((w) => [w.name, w]));
  }

  setMaster(input: MasterPlaylistInput): void {
    this.masterText = renderMasterPlaylist(input);
  }

  /** The master playlist with {@link PREFIX_MARK} and the query mark to substitute. */
  master(): string | undefined {
    return this.masterText;
  }

  /** URI of a media playlist as the master playlist writes it. */
  playlistUri(name: string, queryMark: string): string {
    return `${PREFIX_MARK}live/${name}.m3u8?g=${this.generation}${queryMark}`;
  }

  /** Called after every part, segment or end of stream. */
  notify(): void {
    const list = [...this.waiters];
    this.waiters.clear();
    for (const w of list) w();
  }

  /**
   * Resolves at the next publish event, after `timeoutMs`, or when `signal` aborts
   * (the client went away), whichever comes first; never rejects.
   */
  nextChange(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      this.waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
      if (signal?.aborted) done();
    });
  }

  /** Parked requests right now (bounded by the number of open client connections). */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Wakes everyone (session stop): their next look finds the session gone. */
  close(): void {
    this.notify();
  }
}
