import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Egress, readBodyCapped } from "@svc/core/egress";
import { sniffImageType } from "./image-sniff.js";
import type { LogoCandidate } from "./logo-candidates.js";

/** A logo ready to send. */
export interface Logo {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly source: string;
  /** Served from the cache after the upstreams failed. */
  readonly stale: boolean;
}

interface LogoMeta {
  readonly fetched_at: number;
  readonly content_type: string;
  readonly source: string;
  /** The candidate URLs it was fetched for: a changed `logo_url` invalidates it. */
  readonly signature: string;
}

/** Spec: logos `max-age=3600`; the gateway itself fetches a logo once per hour at most. */
const FRESH_MS = 3_600_000;
/** With no copy at all, a failed logo is not tried again for this long. */
const NEGATIVE_MS = 300_000;
const MAX_LOGO_BYTES = 1_048_576;
const FETCH_DEADLINE_MS = 10_000;

/**
 * Logos cached on disk under `{data_dir}/logos`, one file and one JSON record
 * per channel. Concurrent requests for one channel share one fetch.
 */
export function createLogoCache(options: { dir: string; egress: Egress; userAgent: string }) {
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  const inflight = new Map<string, Promise<Logo | undefined>>();
  const failedAt = new Map<string, number>();
  // A copy served stale is not re-fetched before this time either.
  const retryAt = new Map<string, number>();

  const paths = (channelId: string) => {
    const name = createHash("sha256").update(channelId).digest("hex");
    return { data: join(options.dir, `${name}.img`), meta: join(options.dir, `${name}.json`) };
  };

  async function readCached(channelId: string, signature: string) {
    const p = paths(channelId);
    try {
      const meta = JSON.parse(await readFile(p.meta, "utf8")) as LogoMeta;
      if (meta.signature !== signature) return undefined;
      return { meta, bytes: await readFile(p.data) };
    } catch {
      return undefined;
    }
  }

  async function fetchCandidate(
    channelId: string,
    c: LogoCandidate,
  ): Promise<{ bytes: Buffer; type: string } | undefined> {
    const signal = AbortSignal.timeout(FETCH_DEADLINE_MS);
    const res = await options.egress.request(c.url, {
      headers: { "user-agent": options.userAgent, accept: "image/*" },
      // The channel's egress binding and channel_id rules apply to its logo too.
      channelId,
      signal,
    });
    if (!res.ok) return undefined;
    if (res.status !== 200) {
      res.body.dump().catch(() => undefined);
      return undefined;
    }
    const body = await readBodyCapped(res.body, MAX_LOGO_BYTES, undefined, signal);
    if (!body.ok) return undefined;
    const type = sniffImageType(body.bytes);
    return type === undefined ? undefined : { bytes: body.bytes, type };
  }

  async function load(
    channelId: string,
    candidates: readonly LogoCandidate[],
  ): Promise<Logo | undefined> {
    const signature = JSON.stringify(candidates.map((c) => c.url));
    const cached = await readCached(channelId, signature);
    const now = Date.now();
    if (
      cached !== undefined &&
      (now - cached.meta.fetched_at < FRESH_MS || now < (retryAt.get(channelId) ?? 0))
    )
      return {
        bytes: cached.bytes,
        contentType: cached.meta.content_type,
        source: cached.meta.source,
        stale: false,
      };
    if (cached === undefined && now - (failedAt.get(channelId) ?? -Infinity) < NEGATIVE_MS)
      return undefined;
    for (const c of candidates) {
      const got = await fetchCandidate(channelId, c);
      if (got === undefined) continue;
      const p = paths(channelId);
      const meta: LogoMeta = {
        fetched_at: Date.now(),
        content_type: got.type,
        source: c.source,
        signature,
      };
      await writeFile(`${p.data}.tmp`, got.bytes);
      await rename(`${p.data}.tmp`, p.data);
      await writeFile(`${p.meta}.tmp`, JSON.stringify(meta));
      await rename(`${p.meta}.tmp`, p.meta);
      failedAt.delete(channelId);
      retryAt.delete(channelId);
      return { bytes: got.bytes, contentType: got.type, source: c.source, stale: false };
    }
    if (cached !== undefined) {
      retryAt.set(channelId, Date.now() + FRESH_MS);
      return {
        bytes: cached.bytes,
        contentType: cached.meta.content_type,
        source: cached.meta.source,
        stale: true,
      };
    }
    failedAt.set(channelId, Date.now());
    return undefined;
  }

  return {
    /** The channel's logo, or undefined when every candidate failed and nothing is cached. */
    get(channelId: string, candidates: readonly LogoCandidate[]): Promise<Logo | undefined> {
      const running = inflight.get(channelId);
      if (running !== undefined) return running;
      const p = load(channelId, candidates).finally(() => inflight.delete(channelId));
      inflight.set(channelId, p);
      return p;
    },
  };
}

export type LogoCache = ReturnType<typeof createLogoCache>;
