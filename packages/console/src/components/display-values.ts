/** How the console writes numbers and times for people (not for the API). */

export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function formatDuration(sec: number): string {
  const d = Math.floor(sec / 86400);
  const h = Math.floor((sec % 86400) / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = Math.floor(sec % 60);
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  return `${m}m ${s}s`;
}

/** An API timestamp in the viewer's locale; "—" for none. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : t.toLocaleString();
}

/** Expiry choices of tokens and keys, in seconds (0 = no expiry). */
export const EXPIRY_CHOICES = [
  { value: "0", label: "never" },
  { value: String(86400), label: "1 day" },
  { value: String(7 * 86400), label: "7 days" },
  { value: String(30 * 86400), label: "30 days" },
  { value: String(90 * 86400), label: "90 days" },
  { value: String(365 * 86400), label: "1 year" },
];
