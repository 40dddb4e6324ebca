import { useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { DuplicatesMode, ImportAnswer, ImportEntry } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { CheckboxField, FormField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { useAction } from "../../components/use-action.js";

const count = (v: number | ImportEntry[]) => (Array.isArray(v) ? v.length : v);

/** A `fallback` entry names the channel it joins; a channel entry how many it gets. */
function actionOf(e: ImportEntry): string {
  if (e.action === "fallback") return `fallback ${(e.fallback_index ?? 0) + 1} of ${e.id ?? "—"}`;
  return e.fallbacks ? `${e.action} + ${e.fallbacks} fallback source(s)` : e.action;
}

const PREVIEW_COLUMNS: Column<ImportEntry>[] = [
  { header: "Line", cell: (e) => (typeof e.line === "number" ? String(e.line) : "—") },
  { header: "Channel", cell: (e) => e.id ?? "—", cellClass: "mono" },
  { header: "Title", cell: (e) => e.title ?? "—" },
  { header: "Action", cell: actionOf },
  { header: "Note", cell: (e) => e.reason ?? "", cellClass: "wrap" },
];

/** The revisions a preview saw, sent back on apply so a channel changed since gives 409. */
function revisionsOf(a: ImportAnswer): Record<string, number> {
  if (a.revisions) return a.revisions;
  const out: Record<string, number> = {};
  for (const e of a.entries) if (e.id && typeof e.revision === "number") out[e.id] = e.revision;
  return out;
}

/** M3U import (paste or file → preview → apply) and export download (spec "Import and export"). */
export function M3uScreen() {
  const [content, setContent] = useState("");
  const [preview, setPreview] = useState<ImportAnswer | null>(null);
  /** Entries sharing a tvg-id as one channel with fallback sources; applied as previewed. */
  const [asFallbacks, setAsFallbacks] = useState(false);
  const [previewed, setPreviewed] = useState<DuplicatesMode>("channels");
  const [download, setDownload] = useState<{ url: string; name: string } | null>(null);
  const action = useAction();
  useEffect(
    () => () => {
      if (download) URL.revokeObjectURL(download.url);
    },
    [download],
  );
  return (
    <Screen titleId="m3u-title" title="M3U import and export">
      <Card
        titleId="import-title"
        title="Import"
        onSubmit={async () => {
          setPreview(null);
          const mode: DuplicatesMode = asFallbacks ? "fallbacks" : "channels";
          const r = await action.run(
            () => api.m3u.importPlaylist(content, false, undefined, mode),
            "Preview ready: nothing is written yet.",
          );
          if (r) {
            setPreview(r);
            setPreviewed(mode);
          }
        }}
      >
        <FormField
          label="Playlist file"
          control={(aria) => (
            <input
              {...aria}
              type="file"
              accept=".m3u,.m3u8,audio/x-mpegurl,application/vnd.apple.mpegurl"
              onChange={async (e) => {
                const f = (e.currentTarget as HTMLInputElement).files?.[0];
                if (f) setContent(await f.text());
              }}
            />
          )}
        />
        <TextField label="Or paste the playlist" value={content} onInput={setContent} rows={8} />
        <CheckboxField
          label="Entries sharing a tvg-id become one channel with fallback sources"
          checked={asFallbacks}
          onChange={(v) => {
            setAsFallbacks(v);
            setPreview(null);
          }}
          hint="The first entry is the channel's source, later ones its fallback sources (at most 8)."
        />
        <button
          type="submit"
          class="btn btn-primary"
          disabled={action.busy || content.trim() === ""}
        >
          Preview import
        </button>
      </Card>
      <ActionNotice action={action} />
      {preview ? (
        <Card titleId="preview-title" title="Preview">
          <p data-testid="import-summary">
            {preview.count} entries: {count(preview.created)} to create, {count(preview.updated)} to
            update, {count(preview.skipped)} skipped
            {preview.fallbacks === undefined
              ? ""
              : `, ${preview.fallbacks} as fallback sources of their tvg-id's channel`}
            .
          </p>
          <DataTable
            columns={PREVIEW_COLUMNS}
            rows={preview.entries}
            rowKey={(_e, i) => i}
            empty="The playlist has no entry."
          />
          <button
            type="button"
            class="btn btn-primary"
            disabled={action.busy}
            onClick={async () => {
              const r = await action.run(
                () => api.m3u.importPlaylist(content, true, revisionsOf(preview), previewed),
                (a) =>
                  `Imported: ${count(a.created)} created, ${count(a.updated)} updated, ${count(a.skipped)} skipped.`,
              );
              if (r) setPreview(null);
            }}
          >
            Apply import
          </button>
        </Card>
      ) : null}
      <Card titleId="export-title" title="Export">
        <p class="muted">
          The export creates a playback key named "M3U export" and puts it into the URLs; no session
          or admin token appears in the file.
        </p>
        <button
          type="button"
          class="btn"
          disabled={action.busy}
          onClick={async () => {
            const r = await action.run(() => api.m3u.exportPlaylist(), "Export ready.");
            if (r) {
              const url = URL.createObjectURL(
                new Blob([r.text], { type: "application/vnd.apple.mpegurl" }),
              );
              setDownload({ url, name: r.filename });
            }
          }}
        >
          Create export
        </button>
        {download ? (
          <p>
            <a
              class="btn btn-primary"
              href={download.url}
              download={download.name}
              data-testid="export-download"
            >
              Download {download.name}
            </a>
          </p>
        ) : null}
      </Card>
    </Screen>
  );
}
