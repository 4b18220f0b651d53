/**
 * The fewest characters an order search may have, read by the schema that enforces it and by the console
 * that says so before sending. A name or e-mail is matched by containing the text, served by trigram
 * indexes, which need three characters: one or two match most customers and leave the database to count and
 * sum most orders, past the request bound on a large store. A reference (`#08D34A9F`) or an order's id is
 * longer anyway.
 */
export const MIN_SEARCH_CHARACTERS = 3;
