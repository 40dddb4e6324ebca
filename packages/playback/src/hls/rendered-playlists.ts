import { type CompiledPlaylist, renderPlaylist } from "./playlist-rewriter.js";

/**
 * Credential forms remembered per compiled playlist. A compiled playlist lives as long
 * as its cache entry (at most 2 s, half a target duration), so this bounds one playlist's
 * rendered copies, not their total: a flood of distinct tokens renders the rest per request.
 */
const MAX_FORMS_PER_PLAYLIST = 4_096;

const rendered = new WeakMap<CompiledPlaylist, Map<string, Buffer>>();

/**
 * The bytes of `compiled` rendered for one credential form (`prefix`, `query`): made once
 * per upstream change and form, then shared by every request of that viewer until the
 * upstream playlist changes (issue 13 item 1: a poll costs a map lookup, not a render and
 * a UTF-8 encode). Held by the compiled playlist itself, so they go when it does.
 */
export function renderedPlaylist(
  compiled: CompiledPlaylist,
  prefix: string,
  query: string,
): Buffer {
  let forms = rendered.get(compiled);
  if (forms === undefined) {
    forms = new Map();
    rendered.set(compiled, forms);
  }
  // Without references (a passthrough media playlist) every credential gets the same bytes.
  const key = compiled.refs.length === 0 ? "" : query === "" ? prefix : `${prefix}\0${query}`;
  let bytes = forms.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(renderPlaylist(compiled, prefix, query), "utf8");
    if (forms.size < MAX_FORMS_PER_PLAYLIST) forms.set(key, bytes);
  }
  return bytes;
}
