import bcrypt from "bcrypt";

/** bcrypt cost 4: valid for the gateway's validation, fast enough for tests. */
export function hashFor(password: string): string {
  return bcrypt.hashSync(password, 4);
}

export const ADMIN_PASSWORD = "admin-password-1";
export const VIEWER_PASSWORD = "viewer-password-1";

/** An `auth` section with an admin and a viewer restricted to `viewerChannels`. */
export function authSection(viewerChannels: string[] = [], extra: Record<string, unknown> = {}) {
  return {
    users: [
      { username: "admin", password_hash: hashFor(ADMIN_PASSWORD), role: "admin" },
      {
        username: "viewer",
        password_hash: hashFor(VIEWER_PASSWORD),
        role: "viewer",
        channel_ids: viewerChannels,
      },
    ],
    ...extra,
  };
}
