/**
 * Zone abbreviations XMLTV documents write after a time (`20260101200000 BST`),
 * as minutes east of UTC. The XMLTV perl tools (`tv_sort`, XMLTV::TZ's
 * `gettz`: one to four capitals after a space) hand them to Date::Manip; this
 * is the subset Date::Manip reads, each with the offset it gives the
 * abbreviation in its own season (CST is North American Central, IST India).
 * An abbreviation is a fixed offset whatever the date: `BST` in January is
 * still +0100 (Date::Manip 6 refuses some out of season; a grabber that wrote
 * one meant that offset). docs/guide.md "Times" lists the same table.
 */
export const ZONE_ABBREVIATIONS: ReadonlyMap<string, number> = new Map([
  ["UTC", 0],
  ["UT", 0],
  ["GMT", 0],
  ["Z", 0],
  ["WET", 0],
  ["WEST", 60],
  ["BST", 60],
  ["CET", 60],
  ["MET", 60],
  ["WAT", 60],
  ["CEST", 120],
  ["MEST", 120],
  ["EET", 120],
  ["CAT", 120],
  ["SAST", 120],
  ["EEST", 180],
  ["MSK", 180],
  ["EAT", 180],
  ["IST", 330],
  ["HKT", 480],
  ["AWST", 480],
  ["JST", 540],
  ["KST", 540],
  ["ACST", 570],
  ["AEST", 600],
  ["ACDT", 630],
  ["AEDT", 660],
  ["NZST", 720],
  ["NZDT", 780],
  ["NDT", -150],
  ["NST", -210],
  ["ADT", -180],
  ["AST", -240],
  ["EDT", -240],
  ["EST", -300],
  ["CDT", -300],
  ["CST", -360],
  ["MDT", -360],
  ["MST", -420],
  ["PDT", -420],
  ["PST", -480],
  ["AKDT", -480],
  ["AKST", -540],
  ["HST", -600],
]);
