import type { Action } from "./use-action.js";

/** The outcome line of an action: progress, the API's error message, or what was done. */
export function ActionNotice({
  action,
  busyText = "Working…",
}: {
  action: Action;
  busyText?: string;
}) {
  if (action.busy)
    return (
      <p class="notice notice-busy" role="status">
        <span class="spinner" aria-hidden="true" /> {busyText}
      </p>
    );
  if (action.error !== null)
    return (
      <p class="notice notice-error" role="alert">
        {action.error}
      </p>
    );
  if (action.done !== null)
    return (
      <p class="notice notice-ok" role="status">
        {action.done}
      </p>
    );
  return null;
}

export function ErrorText({ text }: { text: string | null }) {
  return text === null ? null : (
    <p class="notice notice-error" role="alert">
      {text}
    </p>
  );
}
