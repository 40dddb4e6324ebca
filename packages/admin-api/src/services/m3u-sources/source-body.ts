import * as v from "valibot";

const SOURCE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const UPSTREAM_ID = /^$|^[A-Za-z0-9._-]{1,64}$/;

/** Checked against `upstream` by the store: absolute http(s), or a path under the upstream. */
const url = v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(4096));
const name = v.pipe(v.string(), v.maxLength(200));
const interval = v.pipe(
  v.number(),
  v.integer("must be a whole number of minutes"),
  v.minValue(5, "must be at least 5 minutes"),
  v.maxValue(10_080, "must be at most 10080 minutes (a week)"),
);
const upstream = v.pipe(
  v.string(),
  v.regex(UPSTREAM_ID, 'must be "" or the id of a config upstream'),
);
/** Group names kept, exact match (docs/m3u-sources.md "Group filter"); empty keeps all. */
const groupFilter = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  v.maxLength(1000),
);

/** Extensions "M3U provider sources" create body; unknown fields are rejected. */
export const m3uSourceCreateBody = v.strictObject({
  id: v.pipe(v.string(), v.regex(SOURCE_ID, "must be 1-64 characters of A-Z a-z 0-9 . _ -")),
  name: v.optional(name),
  url,
  enabled: v.optional(v.boolean()),
  refresh_interval_min: v.optional(interval),
  upstream: v.optional(upstream),
  group_filter: v.optional(groupFilter),
  remove_missing: v.optional(v.boolean()),
});

/** PUT body: the fields given replace the stored ones; `id`, when given, must be the path's. */
export const m3uSourceUpdateBody = v.strictObject({
  ...v.partial(m3uSourceCreateBody).entries,
  id: v.optional(v.string()),
});

export type M3uSourceCreateBody = v.InferOutput<typeof m3uSourceCreateBody>;
export type M3uSourceUpdateBody = v.InferOutput<typeof m3uSourceUpdateBody>;
