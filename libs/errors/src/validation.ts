// The checks of a value's format that every service and the gateway share: one rule for what an
// email address is and one for what a uuid is, so that a value the REST API accepts is never
// refused by a service behind it, nor the other way round.

// The OpenAPI document's `format: email` as the gateway's request validation checks it (ajv-formats'
// "full" email, which the gateway registers as this very function): a dot-atom local part of
// ASCII letters, digits and !#$%&'*+/=?^_`{|}~- (no leading, trailing or doubled dot) and a domain
// of at least two dot-separated labels of letters, digits and inner hyphens, in any case.
// Not accepted: quoted local parts, IP-literal domains, non-ASCII addresses (internationalised
// domains in their xn-- form are). Lengths are a field's own limit, not part of the format.
const emailPattern =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** Whether `value` is an email address by the public contract's rule (see the pattern above); no trimming. */
export function isEmail(value: unknown): value is string {
  return typeof value === "string" && emailPattern.test(value);
}

// The textual form of a uuid the OpenAPI document's `format: uuid` stands for (the gateway
// registers this function for it) and that Postgres's uuid type reads: 8-4-4-4-12 hex digits,
// any version, either case. An id that passes here never fails a query's cast, and one that
// fails here is refused before a query runs.
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a uuid in its hyphenated form (any version, either case); no trimming. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && uuidPattern.test(value);
}
