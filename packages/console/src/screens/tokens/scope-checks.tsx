import type { Scope } from "../../api/wire.js";
import { CheckboxField } from "../../components/field.js";

const ALL_SCOPES: Scope[] = ["read", "write", "delete", "refresh"];

/** One checkbox per API-token scope. */
export function ScopeChecks(p: { scopes: Scope[]; onChange: (scopes: Scope[]) => void }) {
  return (
    <div class="checks">
      {ALL_SCOPES.map((s) => (
        <CheckboxField
          key={s}
          label={s}
          checked={p.scopes.includes(s)}
          onChange={(on) => p.onChange(on ? [...p.scopes, s] : p.scopes.filter((x) => x !== s))}
        />
      ))}
    </div>
  );
}
