import { useEffect, useRef, useState } from "preact/hooks";
import { isConflict, messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import {
  type ChannelDraft,
  draftOf,
  EMPTY_DRAFT,
  type FieldError,
  fieldErrorOf,
  writeOf,
} from "./channel-draft.js";

interface Loaded {
  /** The draft as the server had it when loaded: the base of the conflict comparison. */
  base: ChannelDraft;
  revision: number;
}

export interface Conflict {
  theirs: ChannelDraft;
  revision: number;
}

export type SetField = <K extends keyof ChannelDraft>(k: K, value: ChannelDraft[K]) => void;

/** What a section of the form gets: the draft, a setter, and the API's message for a field. */
export interface SectionProps {
  draft: ChannelDraft;
  set: SetField;
  /** The message for a top-level field (`title`), whatever part of it the API named. */
  err: (field: string) => string | undefined;
  /** The message for one path (`fallback_sources[1].path`) or what is under it after a dot. */
  errAt: (path: string) => string | undefined;
}

/** The save's notice; a write that left stored secrets behind says which (issue 30 item 2). */
function savedText(created: boolean, dropped: readonly string[] | undefined): string {
  const done = created ? "Channel created." : "Channel saved.";
  return dropped && dropped.length > 0
    ? `${done} Stored secrets not kept because their source moved to another origin: ${dropped.join(", ")}.`
    : done;
}

/**
 * The draft of one channel (`id` null: a new one) and its save. An edit keeps the
 * revision it loaded and sends it as `If-Match`; a 409 never overwrites: it
 * loads the stored version into `conflict` for the conflict panel.
 */
export function useChannelDraft(id: string | null, onSaved: (id: string) => void) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [draft, setDraft] = useState<ChannelDraft>(EMPTY_DRAFT);
  /** The stored channel is being read: the fields are locked so no typing is overwritten. */
  const [loading, setLoading] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<FieldError | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  /** The last save's notice, shown only while the form still edits that channel. */
  const [saved, setSaved] = useState<{ id: string; text: string } | null>(null);
  /** The channel the form edits now: a save that settles after a switch leaves the form alone. */
  const editing = useRef(id);
  editing.current = id;

  useEffect(() => {
    setConflict(null);
    setError(null);
    setFieldError(null);
    if (id === null) {
      setLoaded(null);
      setDraft(EMPTY_DRAFT);
      return;
    }
    let live = true;
    setLoading(true);
    api.channels
      .get(id)
      .then((d) => {
        if (!live) return;
        const base = draftOf(d);
        setLoaded({ base, revision: d.revision });
        setDraft(base);
      })
      .catch((err) => live && setError(messageOf(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [id]);

  const set: SetField = (k, value) => setDraft((d) => ({ ...d, [k]: value }));
  const err = (field: string) => (fieldError?.field === field ? fieldError.message : undefined);
  const errAt = (path: string) =>
    fieldError && (fieldError.path === path || fieldError.path.startsWith(`${path}.`))
      ? fieldError.message
      : undefined;

  const save = async (what: ChannelDraft, revision: number | null) => {
    setBusy(true);
    setError(null);
    setFieldError(null);
    setSaved(null);
    try {
      const body = writeOf(what);
      const answer =
        revision === null
          ? await api.channels.create(body)
          : await api.channels.replace(id!, body, revision);
      setConflict(null);
      setSaved({ id: body.id, text: savedText(revision === null, answer.dropped_secrets) });
      onSaved(body.id);
      // A created channel is loaded by the effect once the screen selects it.
      if (revision === null) return;
      // Load the stored state back: new revision, secrets blanked again.
      const d = await api.channels.get(body.id);
      if (editing.current !== body.id) return;
      setLoaded({ base: draftOf(d), revision: d.revision });
      setDraft(draftOf(d));
    } catch (e) {
      if (isConflict(e) && revision !== null) {
        try {
          const latest = await api.channels.get(id!);
          setConflict({ theirs: draftOf(latest), revision: latest.revision });
        } catch (e2) {
          setError(messageOf(e2));
        }
      } else {
        setError(messageOf(e));
        setFieldError(fieldErrorOf(e));
      }
    } finally {
      setBusy(false);
    }
  };

  return {
    draft,
    set,
    err,
    errAt,
    loaded,
    loading,
    busy,
    error,
    /** The notice of the last save while the form still shows that channel. */
    saved: saved && saved.id === id ? saved.text : null,
    conflict,
    submit: () => void save(draft, loaded?.revision ?? null),
    /** Conflict: drop the edits and take the stored version. */
    takeTheirs() {
      if (conflict === null) return;
      setLoaded({ base: conflict.theirs, revision: conflict.revision });
      setDraft(conflict.theirs);
      setConflict(null);
    },
    /** Conflict: the edits over the stored version, saved at its revision. */
    reapply(merged: ChannelDraft) {
      if (conflict === null) return;
      setLoaded({ base: conflict.theirs, revision: conflict.revision });
      setDraft(merged);
      void save(merged, conflict.revision);
    },
  };
}
