import { CHANNEL_ID_PATTERN } from "@svc/core/catalog";
import { GatewayError } from "@svc/core/errors";
import { Agent, request } from "undici";
import type { ChannelLeaseStore } from "./channel-lease-store.js";
import { INSTANCE_TOKEN_HEADER } from "./instance-token.js";
import type { SessionStopTokens } from "./session-stop-token.js";

export interface SessionStopForwarder {
  /**
   * Asks the instance holding the channel's live lease to stop its session: true when it
   * did (204), false when no other instance holds the channel or its owner runs no session
   * (404). 503 `not_ready` when the owner does not answer.
   */
  stopAtOwner(channelId: string, requestId?: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * `DELETE /v1/admin/sessions/{id}` reaching an instance that does not package the channel
 * (operator contract "Cluster mode"): the owner is read from `channel_leases` (the database,
 * never a cached lease: the answer must name the session that runs now) and sent the same
 * DELETE at its `advertise_url`, with a session stop token in `X-Svc-Instance-Token`
 * standing for the credential check done here. The owner stops its session before it
 * answers, so the admin's 204 means stopped, wherever it was sent.
 */
export function createSessionStopForwarder(o: {
  readonly store: ChannelLeaseStore;
  readonly selfId: string;
  readonly tokens: SessionStopTokens;
}): SessionStopForwarder {
  // A dead owner fails fast; stopping an ffmpeg session may take a few seconds.
  const agent = new Agent({ connect: { timeout: 2_000 }, headersTimeout: 20_000 });
  return {
    async stopAtOwner(channelId, requestId) {
      // A name no channel can have holds no lease; asking the database anyway would hand
      // PostgreSQL a NUL byte it refuses as text (a 500 for a hostile path).
      if (!CHANNEL_ID_PATTERN.test(channelId)) return false;
      const view = await o.store.current(channelId);
      if (view === undefined || view.lease.ownerId === o.selfId) return false;
      const url = `${view.lease.ownerUrl.replace(/\/+$/, "")}/v1/admin/sessions/${encodeURIComponent(channelId)}`;
      let status: number;
      try {
        const answer = await request(url, {
          dispatcher: agent,
          method: "DELETE",
          headers: {
            [INSTANCE_TOKEN_HEADER]: o.tokens.mint(channelId),
            ...(requestId === undefined ? {} : { "x-request-id": requestId }),
          },
        });
        status = answer.statusCode;
        await answer.body.dump().catch(() => undefined);
      } catch {
        status = 0;
      }
      if (status === 204) return true;
      if (status === 404) return false;
      throw new GatewayError(
        "not_ready",
        "the instance packaging this channel did not answer the stop",
        { headers: { "Retry-After": "2" } },
      );
    },
    close: () => agent.close(),
  };
}
