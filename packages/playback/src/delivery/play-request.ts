import type { Channel } from "@svc/core/catalog";
import type { AppEnv } from "@svc/core/http";
import type { Context } from "hono";

/** Who a play request is for, resolved once per request by the play routes. */
export interface PlayRequest {
  readonly channel: Channel;
  /** Absolute URL prefix of generated URLs, ending with `/{id}/`. */
  readonly prefix: string;
  /** "" or `&…`: the credential query and the viewer lease, appended to generated URLs. */
  readonly query: string;
  /**
   * Shared caches may keep this request's immutable media (`Cache-Control: public`): it
   * needed no credential and carries no per-viewer lease (see `mediaCacheControl`).
   */
  readonly sharedCache?: boolean;
  /**
   * Takes one of the client's places for a request about to wait (a start wait, an LL-HLS
   * blocking reload, a preload-hinted part) and returns its release; throws 429
   * `too_many_requests` when the client has `MAX_PARKED_PER_CLIENT` (32) waiting already.
   */
  readonly park?: () => () => void;
  /**
   * Cluster mode: forwarded by another instance, which checked the credential and
   * the viewer lease (an instance token stood for them); never forwarded again.
   */
  readonly forwarded?: true;
}

/**
 * Locally packaged output (the DASH and MPEG-TS engines): `index.m3u8` of a packaged
 * channel and every `live/{file}` request are handed to it after the credential,
 * scope, lease and file-name checks.
 */
export interface LocalIngress {
  index(c: Context<AppEnv>, request: PlayRequest): Promise<Response>;
  live(c: Context<AppEnv>, request: PlayRequest, file: string): Promise<Response>;
  /**
   * `stream.ts` (extensions "MPEG-TS output") of a locally packaged channel; `lease`
   * renews the viewer's seat while it watches (a channel with `max_viewers`).
   */
  stream?(c: Context<AppEnv>, request: PlayRequest, lease?: () => void): Promise<Response>;
}
