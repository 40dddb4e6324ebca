import type { Egress } from "@svc/core/egress";
import { conditionalGet, type Validators } from "../conditional-download.js";

export type ListDownload =
  | { readonly ok: true; readonly notModified: true }
  | {
      readonly ok: true;
      readonly notModified: false;
      /** The playlist as the pieces it was decoded in (never joined: up to the ceiling). */
      readonly pieces: readonly string[];
      readonly validators: Validators;
    }
  | { readonly ok: false; readonly error: string };

/**
 * GETs a provider playlist with {@link conditionalGet} and reads the body up to `maxBytes`,
 * decoded as UTF-8 piece by piece. Error texts are safe to show: no URL, query string or body.
 */
export async function downloadList(
  egress: Egress,
  request: {
    readonly url: string;
    readonly validators: Validators;
    readonly userAgent: string;
    readonly signal: AbortSignal;
  },
  maxBytes: number,
): Promise<ListDownload> {
  const answer = await conditionalGet(
    egress,
    {
      url: request.url,
      headers: {
        "user-agent": request.userAgent,
        accept: "audio/x-mpegurl, application/vnd.apple.mpegurl, text/plain, */*;q=0.5",
      },
      validators: request.validators,
      signal: request.signal,
    },
    { encodings: ["identity"], maxBytes, what: "playlist" },
  );
  if (!answer.ok || answer.notModified) return answer;
  const { res, validators } = answer;
  const decoder = new TextDecoder("utf-8");
  const pieces: string[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      received += buf.length;
      if (received > maxBytes) {
        res.body.destroy();
        return { ok: false, error: `playlist larger than ${maxBytes} bytes` };
      }
      pieces.push(decoder.decode(buf, { stream: true }));
    }
    pieces.push(decoder.decode());
  } catch {
    return { ok: false, error: "fetch failed: the connection broke while reading the playlist" };
  }
  return {
    ok: true,
    notModified: false,
    pieces,
    validators,
  };
}
