import type { ComponentChildren } from "preact";
import type { Action } from "./use-action.js";

/**
 * A button that runs one API call through a screen's {@link Action}: disabled
 * while any of its actions runs, the outcome shown by that action's notice.
 *
 * @example
 * <ActionButton action={action} run={() => api.channels.stopSession(id)} done="Session stopped.">
 *   Stop session
 * </ActionButton>
 */
export function ActionButton<T>(p: {
  action: Action;
  run: () => Promise<T>;
  /** The success line (see `Action.run`). */
  done?: string | ((value: T) => string);
  /** Gets the value of a call that succeeded (a probe result to show). */
  onValue?: (value: T) => void;
  primary?: boolean;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={p.primary ? "btn btn-primary" : "btn"}
      disabled={p.action.busy}
      onClick={async () => {
        const value = await p.action.run(p.run, p.done);
        if (value !== undefined) p.onValue?.(value);
      }}
    >
      {p.children}
    </button>
  );
}
