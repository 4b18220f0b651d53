// The console's CSV files (console/src/csv.ts): quoted as RFC 4180 says, and safe to open in a
// spreadsheet: a name written as a formula is text, not a formula.
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../console/src/csv.ts';

describe('toCsv', () => {
  it('quotes commas, quotes and line breaks, leaves numbers unformatted and empty cells empty', () => {
    expect(toCsv(['name', 'amount', 'note'], [['春季特賣, 第二波', 1234.5, 'said "hi"\nthen left'], ['plain', -3, null]]))
      .toBe('name,amount,note\r\n"春季特賣, 第二波",1234.5,"said ""hi""\nthen left"\r\nplain,-3,\r\n');
  });

  it.each(['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'])(
    'a text cell starting like a formula (%j) is written as text',
    (name) => {
      const line = toCsv(['name'], [[name]]).split('\r\n')[1];
      expect(line.replace(/^"/, '').startsWith("'")).toBe(true);
    },
  );
});
