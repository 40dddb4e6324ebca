/** Request outcomes of simulated viewers, per kind, for one report interval. */
export type Outcome = "ok" | "4xx" | "5xx" | "500" | "timeout" | "error";
export type Kind = "playlist" | "segment" | "slow-segment" | "health";

/** hls.js's default manifest and fragment load timeout: an answer slower than this fails a player. */
export const PLAYER_TIMEOUT_MS = 10_000;

export class Tally {
  /** Answers (not timeouts) slower than {@link PLAYER_TIMEOUT_MS}, per kind. */
  readonly late = new Map<Kind, number>();
  readonly counts = new Map<string, number>();
  /** The first hung requests (path without the playback key), for the report. */
  readonly hung: string[] = [];
  readonly latencies = new Map<Kind, number[]>();

  add(kind: Kind, outcome: Outcome, ms: number): void {
    const key = `${kind}:${outcome}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (outcome !== "timeout" && ms > PLAYER_TIMEOUT_MS)
      this.late.set(kind, (this.late.get(kind) ?? 0) + 1);
    if (outcome !== "timeout") {
      const list = this.latencies.get(kind) ?? [];
      list.push(ms);
      this.latencies.set(kind, list);
    }
  }

  count(kind: Kind, outcome: Outcome): number {
    return this.counts.get(`${kind}:${outcome}`) ?? 0;
  }

  p99(kind: Kind): number | undefined {
    const list = this.latencies.get(kind);
    if (list === undefined || list.length === 0) return undefined;
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
  }

  /** The first client-error answers (status and path without the key), for the report. */
  readonly refused: string[] = [];

  refuse(kind: Kind, url: string, status: number): void {
    if (this.refused.length < 20) this.refused.push(`${kind} ${status} ${redact(url)}`);
  }

  hang(kind: Kind, url: string, ms: number): void {
    if (this.hung.length < 20) this.hung.push(`${kind} ${redact(url)} after ${Math.round(ms)} ms`);
  }

  merge(other: Tally): void {
    for (const [k, v] of other.late) this.late.set(k, (this.late.get(k) ?? 0) + v);
    for (const h of other.hung) if (this.hung.length < 20) this.hung.push(h);
    for (const r of other.refused) if (this.refused.length < 20) this.refused.push(r);
    for (const [k, v] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + v);
    for (const [k, v] of other.latencies)
      this.latencies.set(k, [...(this.latencies.get(k) ?? []), ...v]);
  }
}

/** A URL's path with the playback key replaced (the report must not print a credential). */
function redact(url: string): string {
  return new URL(url).pathname.replace(/\/p\/v1[0-9A-Za-z]+/, "/p/{key}");
}

export function outcomeOf(status: number): Outcome {
  if (status === 500) return "500";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "ok";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The URIs of a playlist's URI lines, resolved against its URL. */
function uriLines(text: string, base: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => new URL(l, base).href);
}

export interface ViewerOptions {
  readonly playUrl: string;
  readonly until: number;
  /** Per-request timeout: a request still running after it is a hang. */
  readonly timeoutMs: number;
  /** Reads segment bodies one chunk a second, holding the response open (a slow client). */
  readonly slow: boolean;
  readonly tally: () => Tally;
}

/**
 * One simulated player: reloads its media playlist about once a second (following the
 * master's first variant) and fetches each new segment, like hls.js on a live channel.
 */
export async function runViewer(o: ViewerOptions): Promise<void> {
  await sleep(Math.random() * 3000); // spread the start
  let media: string | undefined;
  let last = "";
  while (Date.now() < o.until) {
    const url = media ?? o.playUrl;
    const text = await timed(o, "playlist", url, async (res) => res.text());
    if (text !== undefined) {
      if (text.includes("#EXT-X-STREAM-INF")) {
        media = uriLines(text, url)[0];
        continue;
      }
      const segment = uriLines(text, url).at(-1);
      if (segment !== undefined && segment !== last) {
        last = segment;
        await timed(o, o.slow ? "slow-segment" : "segment", segment, async (res) => {
          if (!o.slow) return void (await res.arrayBuffer());
          const reader = res.body!.getReader();
          for (;;) {
            const { done } = await reader.read();
            if (done) return;
            await sleep(1000); // holds the response open: the gateway must not wait for us
          }
        });
      }
    }
    await sleep(800 + Math.random() * 400);
  }
}

async function timed<T>(
  o: ViewerOptions,
  kind: Kind,
  url: string,
  read: (res: Response) => Promise<T>,
): Promise<T | undefined> {
  const started = performance.now();
  // Slow readers get a longer budget: their body is slow on purpose.
  const signal = AbortSignal.timeout(kind === "slow-segment" ? o.timeoutMs * 6 : o.timeoutMs);
  try {
    const res = await fetch(url, { signal });
    const outcome = outcomeOf(res.status);
    if (outcome === "4xx") o.tally().refuse(kind, url, res.status);
    if (outcome !== "ok") {
      await res.arrayBuffer().catch(() => undefined);
      o.tally().add(kind, outcome, performance.now() - started);
      return undefined;
    }
    const value = await read(res);
    o.tally().add(kind, "ok", performance.now() - started);
    return value;
  } catch (err) {
    const timeout = (err as Error).name === "TimeoutError";
    if (timeout) o.tally().hang(kind, url, performance.now() - started);
    o.tally().add(kind, timeout ? "timeout" : "error", performance.now() - started);
    return undefined;
  }
}
