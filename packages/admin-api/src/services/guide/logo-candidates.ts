import type { Channel } from "@svc/core/catalog";
import type { ChannelMatch } from "./channel-matcher.js";
import { slugName, snpName } from "./name-normalizer.js";

/** One place a logo may come from; `source` is what `X-Svc-Logo-Source` reports. */
export interface LogoCandidate {
  readonly source: string;
  readonly url: string;
}

/**
 * Spec `/v1/logo/{id}` and docs/guide.md "Logos": the channel's `logo_url`,
 * then the matched guide channel's icon, then each configured public logo
 * repository (`guide.logo_repositories`) keyed on `epg_name`, else the title.
 */
export function logoCandidates(
  ch: Channel,
  match: ChannelMatch | undefined,
  repositories: readonly string[],
): LogoCandidate[] {
  const out: LogoCandidate[] = [];
  if (/^https?:\/\//i.test(ch.logo_url)) out.push({ source: "channel", url: ch.logo_url });
  const icon = match?.match?.icon ?? "";
  if (/^https?:\/\//i.test(icon)) out.push({ source: "guide", url: icon });
  const name = ch.epg_name || ch.title;
  repositories.forEach((template, i) => {
    const snp = snpName(name);
    const slug = slugName(name);
    if (snp === "" || slug === "") return;
    out.push({
      source: `repository-${i + 1}`,
      url: template
        .replaceAll("{snp}", encodeURIComponent(snp))
        .replaceAll("{slug}", encodeURIComponent(slug)),
    });
  });
  return out;
}
