/**
 * The fields an M3U provider source's last sync wrote on a channel it owns
 * (docs/m3u-sources.md "Operator edits"): a channel field that differs from its
 * value here was edited by an operator since, and the next sync keeps it.
 */
export interface M3uSynced {
  readonly title: string;
  readonly group: string;
  readonly epg_id: string;
  readonly epg_name: string;
  readonly sort_order: number;
  /** Absent in what a sync wrote before channels had numbers: read as "". */
  readonly guide_number?: string;
  readonly disabled: boolean;
}
