// A small reader of PromQL expressions, enough to list which series and labels the alert rules
// and the dashboard use (their syntax is promtool's to check).

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"]);
const IDENTIFIER = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;

export interface SeriesUse {
  /** Metric names, as written (histograms with their _bucket/_count/_sum suffix). */
  metrics: Set<string>;
  /** Label names in selectors, per metric name. */
  selectorLabels: Map<string, Set<string>>;
  /** Label names of by/without/on/ignoring/group_left/group_right lists. */
  groupingLabels: Set<string>;
}

export function seriesUse(expression: string): SeriesUse {
  const selectorLabels = new Map<string, Set<string>>();
  const groupingLabels = new Set<string>();
  const noStrings = expression.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\$\{?\w+\}?/g, "");
  for (const match of noStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}/g)) {
    const labels = selectorLabels.get(match[1]!) ?? new Set<string>();
    for (const matcher of match[2]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)) labels.add(matcher[1]!);
    selectorLabels.set(match[1]!, labels);
  }
  for (const match of noStrings.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const label of match[1]!.split(",")) if (label.trim()) groupingLabels.add(label.trim());
  }
  const bare = noStrings
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\boffset\s+\w+/g, " ");
  const metrics = new Set<string>();
  for (const match of bare.matchAll(IDENTIFIER)) {
    const before = bare[match.index - 1];
    if (before !== undefined && /[0-9.]/.test(before)) continue; // 1e9, 0.5
    const after = bare.slice(match.index + match[0].length).trimStart();
    if (after.startsWith("(")) continue; // a function or an aggregation
    if (KEYWORDS.has(match[0])) continue;
    metrics.add(match[0]);
  }
  return { metrics, selectorLabels, groupingLabels };
}
