/**
 * The fewest characters an order search may have, read by the schema that enforces it and by the console
 * that says so before sending. A name or e-mail is matched by containing the text: one or two letters match
 * most customers and tell the database nothing, while a Chinese (Han) character names as few as three
 * letters do: 陳, the most common surname in Taiwan, is a tenth of its people. So each Han character counts
 * as three, and a surname alone is a search. A reference (`#08D34A9F`) or an order's id is longer anyway.
 */
export const MIN_SEARCH_CHARACTERS = 3;

const HAN = /\p{Script=Han}/u;

/** A search's length as the minimum counts it: each Han character three, anything else one. */
export function searchLength(text: string): number {
  let length = 0;
  for (const character of text.trim()) length += HAN.test(character) ? 3 : 1;
  return length;
}
