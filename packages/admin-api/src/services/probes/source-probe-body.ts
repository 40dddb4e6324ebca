import * as v from "valibot";
import { channelWriteBody } from "../channels/write-body.js";

/**
 * `POST /v1/admin/source-probes` (spec "Sessions, probes, previews"): a channel write body
 * with its optional `egress` block, validated by the channel schema itself. Only `id` may be
 * left out, for a channel that has not been created yet.
 */
export const sourceProbeBody = v.strictObject({
  ...channelWriteBody.entries,
  id: v.optional(channelWriteBody.entries.id),
});

export type SourceProbeBody = v.InferOutput<typeof sourceProbeBody>;
