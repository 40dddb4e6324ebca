import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { Me } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { useAction } from "../../components/use-action.js";

/** `PUT /v1/me/credentials`: the fresh token replaces the console's; older sessions die. */
export function AccountScreen(p: { me: Me; onChanged: (token: string) => void }) {
  const [current, setCurrent] = useState("");
  const [username, setUsername] = useState(p.me.username);
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = async () => {
    const body: { current_password: string; username?: string; new_password?: string } = {
      current_password: current,
    };
    if (username !== p.me.username) body.username = username;
    if (password !== "") body.new_password = password;
    const r = await action.run(
      () => api.changeCredentials(body),
      "Credentials changed. Other sessions of this account have ended.",
    );
    if (r) {
      setCurrent("");
      setPassword("");
      p.onChanged(r.token);
    }
  };
  return (
    <Screen titleId="account-title" title="Account">
      <Card titleId="cred-title" title="Change username or password" onSubmit={() => void submit()}>
        <p class="muted">
          Signed in as {p.me.username} ({p.me.role}).
        </p>
        <TextField
          label="Username"
          value={username}
          onInput={setUsername}
          autoComplete="username"
          hint="At most 64 characters"
        />
        <TextField
          label="New password"
          type="password"
          value={password}
          onInput={setPassword}
          autoComplete="new-password"
          hint="8 to 72 bytes; blank keeps the current one"
        />
        <TextField
          label="Current password"
          type="password"
          value={current}
          onInput={setCurrent}
          autoComplete="current-password"
          required
        />
        <ActionNotice action={action} />
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Change credentials
        </button>
      </Card>
    </Screen>
  );
}
