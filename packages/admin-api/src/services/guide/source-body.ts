import { httpUrl } from "@svc/core/config";
import * as v from "valibot";
import { isIanaZone } from "./zone-offset.js";

const SOURCE_ID = /^[A-Za-z0-9._-]{1,64}$/;

const url = httpUrl("must be an absolute http or https URL");

/** `auto`, `direct` or the id of an egress route (checked by egress routing, issue 11). */
const proxy = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be "auto", "direct" or a route id'),
);

const timezone = v.pipe(
  v.string(),
  v.check(isIanaZone, "must be an IANA time zone such as Europe/Berlin"),
);

/** Spec "Guide source" write body; unknown fields are rejected. */
export const sourceCreateBody = v.strictObject({
  id: v.pipe(v.string(), v.regex(SOURCE_ID, "must be 1-64 characters of A-Z a-z 0-9 . _ -")),
  name: v.optional(v.pipe(v.string(), v.maxLength(200))),
  url: v.optional(url),
  timezone: v.optional(timezone),
  proxy: v.optional(proxy),
  enabled: v.optional(v.boolean()),
});

/** PUT body: every field optional (a preset is overridden by changed fields only). */
export const sourceUpdateBody = v.strictObject({
  ...v.partial(sourceCreateBody).entries,
  id: v.optional(v.string()),
});

export type SourceCreateBody = v.InferOutput<typeof sourceCreateBody>;
export type SourceUpdateBody = v.InferOutput<typeof sourceUpdateBody>;
