import { channelFields } from "@svc/core/config";
import * as v from "valibot";

const HEX_128 = /^[0-9a-fA-F]{32}$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * Spec "Channels": a write is the channel object plus an optional `egress`
 * block. Unknown fields are rejected. Header values and ClearKey key values
 * may be blank, meaning "keep the stored value" (admin reads show them blank).
 */
export const channelWriteBody = v.strictObject({
  ...channelFields,
  headers: v.optional(
    v.pipe(
      v.record(
        v.pipe(
          v.string(),
          v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "header name must be an HTTP token"),
        ),
        v.pipe(v.string(), v.regex(HEADER_VALUE, "header value may not contain CR, LF or NUL")),
      ),
      v.check((h) => Object.keys(h).length <= 64, "at most 64 headers"),
    ),
    {},
  ),
  keys: v.optional(
    v.record(
      v.pipe(v.string(), v.regex(HEX_128, "KID must be 32 hex digits")),
      v.union(
        [v.literal(""), v.pipe(v.string(), v.regex(HEX_128, "key must be 32 hex digits"))],
        "key must be 32 hex digits",
      ),
    ),
    {},
  ),
  // Extension "M3U provider sources": read-only, accepted so that a channel read can be
  // written back; ownership is kept from the stored channel, never taken from the body.
  m3u_source: v.optional(v.string()),
  egress: v.optional(
    v.strictObject({
      mode: v.picklist(["auto", "direct", "profile"], 'must be "auto", "direct" or "profile"'),
      profile_id: v.optional(v.nullable(v.string())),
      new_proxy: v.optional(
        v.strictObject({
          id: v.optional(v.string()),
          name: v.optional(v.pipe(v.string(), v.maxLength(200)), ""),
          url: v.pipe(v.string(), v.maxLength(2048)),
          disabled: v.optional(v.literal(false), false),
        }),
      ),
    }),
  ),
});

export type ChannelWrite = v.InferOutput<typeof channelWriteBody>;
