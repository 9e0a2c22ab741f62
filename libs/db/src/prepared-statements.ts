// Named statements: a statement text that a service sends again and again is parsed and planned
// by Postgres once per connection instead of on every call. On a write, parsing and planning are
// a large part of Postgres' own work (the CTEs of a ticket creation, the outbox insert), and the
// connection keeps the statement for its whole life.
//
// Two kinds of text stay unnamed:
// - a result of `*` (`select *`, `returning *`, `"t".*`): when a migration adds a column, a
//   statement prepared before it would fail with "cached plan must not change result type" on
//   every old replica during a rolling deploy;
// - anything but select/insert/update/delete/with/values (transaction control, DDL, SET);
// - a text marked with PLANNED_EACH_TIME: one whose best plan depends on its values (a search's
//   words). Postgres plans a named statement for its values five times, then may switch to one
//   generic plan for every value whose estimated cost looks no worse: for a search, a plan for no
//   word in particular, which read the matches of a frequent word two to three times slower than
//   a plan for that word. An unnamed statement is planned for its values every time.
// A result type can still change under an explicit column list (a column's type altered). Then
// the connection prepares the text afresh under a new name at its next use, and a statement that
// failed outside a transaction is sent again at once; inside a transaction the unit of work
// fails, as on any error, and its retry finds the text prepared anew.
import type pg from "pg";

/**
 * The comment that keeps a statement unnamed, planned for its values at each execution; in a
 * kysely select, `.modifyFront(sql.raw(PLANNED_EACH_TIME))` (after the `select`) or at the start
 * of a `sql` template.
 */
export const PLANNED_EACH_TIME = "/* planned each time */";

/** Most texts one pool names; past it, new texts go unnamed (variable-length lists would grow the list without end). */
export const defaultPreparedStatementsMax = 256;

const preparable = /^\s*(?:select|insert|update|delete|with|values)\b/i;
const starResult = /(?:\bselect(?:\s+distinct)?|\breturning|,)\s*(?:(?:"[^"]*"|\w+)\s*\.\s*)?\*/i;

/** The names of one pool: each preparable text gets one, up to `max` texts. */
export class StatementNames {
  readonly #names = new Map<string, string>();
  // Texts found not preparable (a list page's `select *`, BEGIN), so that a text sent on every
  // request is not matched against the patterns each time; as many as `max` are remembered.
  readonly #unnamed = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The text's name, or undefined when it stays unnamed. */
  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (this.#names.size >= this.#max || this.#unnamed.has(text)) return undefined;
    if (!preparable.test(text) || starResult.test(text) || text.includes(PLANNED_EACH_TIME)) {
      if (this.#unnamed.size < this.#max) this.#unnamed.add(text);
      return undefined;
    }
    const name = `s${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }
}

const resultTypeChanged = "0A000";

function isResultTypeChange(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === resultTypeChanged &&
    /cached plan must not change result type/.test(String((error as { message?: unknown }).message))
  );
}

type QueryFn = (...args: unknown[]) => Promise<unknown>;

/** Sends the client's `query(text, values)` calls as named statements where `names` gives one. */
export function prepareStatements(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query as unknown as QueryFn;
  // Texts whose statement this connection had to prepare again, with the name now in use.
  let renamed: Map<string, string> | undefined;
  let generation = 0;

  const send = (self: pg.PoolClient, text: string, values: unknown[], name: string, retry: boolean): Promise<unknown> =>
    query.call(self, { text, values, name }).catch((error: unknown) => {
      if (!isResultTypeChange(error)) throw error;
      renamed ??= new Map();
      const fresh = `${name}_${++generation}`;
      renamed.set(text, fresh);
      // 'I': the failed statement ran on its own, so sending it again changes nothing else.
      if (retry && self.getTransactionStatus() === "I") return send(self, text, values, fresh, false);
      throw error;
    });

  client.query = function namedQuery(this: pg.PoolClient, ...args: unknown[]) {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== "string" || !Array.isArray(values)) return query.apply(this, args);
    const name = renamed?.get(text) ?? names.nameOf(text);
    if (name === undefined) return query.apply(this, args);
    return send(this, text, values, name, true);
  } as typeof client.query;
}
