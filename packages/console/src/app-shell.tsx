import type { Me } from "./api/wire.js";
import { type Screen, useScreen } from "./components/router.js";
import { AccountScreen } from "./screens/account/account-screen.js";
import { ChannelsScreen } from "./screens/channels/channels-screen.js";
import { DashboardScreen } from "./screens/dashboard/dashboard-screen.js";
import { EgressScreen } from "./screens/egress/egress-screen.js";
import { GuideScreen } from "./screens/guide/guide-screen.js";
import { PlaybackKeysScreen } from "./screens/keys/playback-keys-screen.js";
import { LogsScreen } from "./screens/logs/logs-screen.js";
import { M3uScreen } from "./screens/m3u/m3u-screen.js";
import { M3uSourcesScreen } from "./screens/m3u-sources/m3u-sources-screen.js";
import { SettingsScreen } from "./screens/settings/settings-screen.js";
import { ApiTokensScreen } from "./screens/tokens/api-tokens-screen.js";

const NAV: { screen: Screen; label: string }[] = [
  { screen: "dashboard", label: "Dashboard" },
  { screen: "channels", label: "Channels" },
  { screen: "guide", label: "Guide" },
  { screen: "egress", label: "Egress" },
  { screen: "m3u", label: "M3U" },
  { screen: "m3u-sources", label: "M3U sources" },
  { screen: "keys", label: "Playback keys" },
  { screen: "tokens", label: "API tokens" },
  { screen: "logs", label: "Logs" },
  { screen: "settings", label: "Settings" },
  { screen: "account", label: "Account" },
];

/** Header, navigation and the current screen. */
export function AppShell(p: {
  me: Me;
  onSignOut: () => void;
  onAccountChanged: (token: string) => void;
}) {
  const screen = useScreen();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">svc-gateway</span>
        <nav aria-label="Console">
          <ul class="nav">
            {NAV.map((n) => (
              <li key={n.screen}>
                <a
                  href={`#/${n.screen}`}
                  class="nav-link"
                  aria-current={screen === n.screen ? "page" : undefined}
                >
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="whoami">{p.me.username}</span>
        <button type="button" class="btn" onClick={p.onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {screen === "dashboard" && <DashboardScreen />}
        {screen === "channels" && <ChannelsScreen />}
        {screen === "guide" && <GuideScreen />}
        {screen === "egress" && <EgressScreen />}
        {screen === "m3u" && <M3uScreen />}
        {screen === "m3u-sources" && <M3uSourcesScreen />}
        {screen === "keys" && <PlaybackKeysScreen />}
        {screen === "tokens" && <ApiTokensScreen />}
        {screen === "logs" && <LogsScreen />}
        {screen === "settings" && <SettingsScreen />}
        {screen === "account" && <AccountScreen me={p.me} onChanged={p.onAccountChanged} />}
      </main>
    </>
  );
}
