import { HeadersEditor } from "./headers-editor.js";
import type { SectionProps } from "./use-channel-draft.js";

/** Upstream request headers; the API blanks the sensitive ones on read (spec "Channel"). */
export function ChannelHeadersSection({ draft, set, err }: SectionProps) {
  return (
    <>
      <HeadersEditor rows={draft.headers} onChange={(rows) => set("headers", rows)} />
      {err("headers") ? <p class="field-error">{err("headers")}</p> : null}
    </>
  );
}
