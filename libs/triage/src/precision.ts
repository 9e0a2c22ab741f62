// Online precision: how often what the triage put forward was what the agents kept. Counted from
// pairs of (what the triage predicted, what the ticket had once agents were done with it, e.g. at
// resolution): a value set by the triage and still there is right, one an agent removed or
// changed is wrong; a suggestion is right when the ticket ends with that value (an agent applied
// it, or set the same value by hand) and wrong otherwise. Precision = right / (right + wrong),
// per tag or field and per decision, since a set value and a suggestion are judged by different
// readers (an agent who must undo vs one who may ignore). Values predicted "none" are not counted:
// precision says nothing about what the triage did not put forward (that would be recall, which
// the agents' own additions would measure).

export interface PredictionOutcome {
  /** The tag name, or the field key. */
  name: string;
  kind: "tag" | "field";
  decision: "set" | "suggest" | "none";
  /** The predicted value: for a tag, its name (the prediction is "present"); for a field, the value. */
  predicted: string;
  /**
   * The final value: for a tag, its name when the ticket still has it, else null; for a field,
   * its value (null when cleared).
   */
  final: string | null;
}

export interface PrecisionCount {
  right: number;
  wrong: number;
  /** right / (right + wrong); null when nothing was counted. */
  precision: number | null;
}

export interface OnlinePrecision {
  /** Keyed "tag:<name>" or "field:<key>", then by decision. */
  byName: Record<string, { set: PrecisionCount; suggest: PrecisionCount }>;
  set: PrecisionCount;
  suggest: PrecisionCount;
}

const empty = (): PrecisionCount => ({ right: 0, wrong: 0, precision: null });

function count(into: PrecisionCount, right: boolean): void {
  if (right) into.right++;
  else into.wrong++;
  into.precision = into.right / (into.right + into.wrong);
}

export function onlinePrecision(outcomes: Iterable<PredictionOutcome>): OnlinePrecision {
  const result: OnlinePrecision = { byName: {}, set: empty(), suggest: empty() };
  for (const outcome of outcomes) {
    if (outcome.decision === "none") continue;
    const right = outcome.final === outcome.predicted;
    const key = `${outcome.kind}:${outcome.name}`;
    const entry = (result.byName[key] ??= { set: empty(), suggest: empty() });
    count(entry[outcome.decision], right);
    count(result[outcome.decision], right);
  }
  return result;
}
