import type { Egress } from "@svc/core/egress";
import { describeRefusal, openUpstream } from "../../dash/fetcher/upstream-fetch.js";
import { PacketReader } from "../../ts/packet-reader.js";

/** How long the check reads before it gives up on a source that sends too little. */
const CHECK_DEADLINE_MS = 10_000;

export interface TsSourceCheckContext {
  readonly egress: Egress;
  readonly channelId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

/**
 * Before the ffmpeg engine runs for a `ts` channel: one short connection through egress
 * (the SSRF guard, the channel's headers) that reads until the packet reader locks onto
 * MPEG-TS, then closes. ffmpeg would only say "Invalid data found" after its own probing;
 * this names the reason (an HTTP status, a refused host, an HLS playlist or HTML page)
 * within seconds, as the native engine does.
 */
export async function checkTsSource(
  ctx: TsSourceCheckContext,
  url: string,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const r = await openUpstream(
    { ...ctx, credentialOrigin: new URL(url).origin },
    url,
    CHECK_DEADLINE_MS,
  );
  if (!r.ok)
    return {
      ok: false,
      message: `source: ${r.kind === "refused" ? describeRefusal(url, r.message) : r.message}`,
    };
  const reader = new PacketReader();
  try {
    for await (const chunk of r.body as AsyncIterable<Buffer>) {
      const got = reader.push(chunk);
      if (!got.ok) return { ok: false, message: `source is not MPEG-TS: ${got.reason}` };
      if (got.packets.length > 0) return { ok: true };
    }
    const refusal = reader.refusalAtEnd();
    return {
      ok: false,
      message: `source is not MPEG-TS: ${refusal ?? "the stream ended at once"}`,
    };
  } catch {
    return { ok: false, message: "source sent no MPEG-TS in time" };
  } finally {
    r.done();
    r.body.destroy();
  }
}
