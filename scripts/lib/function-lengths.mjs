// The length of every function in supabase/functions (TypeScript) and supabase/schemas (SQL), in lines of code
// of its own body, blank lines and lines of comment alone not counted: a TypeScript function's body without the
// bodies of the functions inside it (a factory returning handlers is as long as the lines that are its own;
// each handler is measured on its own), a SQL function's from the line after `as $$` to the one before `$$;`.
// test/platform/schema-shape.test.ts holds them to 80, but for the data tables it names.
//
//   node scripts/lib/function-lengths.mjs [min]   lists the functions of at least `min` lines (default 60)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Whether a line holds code: not blank, not a comment alone (`//`, or `--` in SQL; a `*` line of a block). */
function isCode(line, comment) {
  const t = line.trim();
  return t !== '' && !t.startsWith(comment) && !t.startsWith('/*') && !t.startsWith('*');
}

function filesUnder(dir, ext) {
  return readdirSync(path.join(ROOT, dir), { recursive: true })
    .filter((f) => f.endsWith(ext))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Each function of a TypeScript file: `{ file, name, lines }`, lines of its own body. */
function typeScriptFunctions(file) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const code = text.split('\n').map((l) => isCode(l, '//'));
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const line = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  // The code lines between a body's braces.
  const codeLines = (body) => code.slice(line(body.getStart(source)) + 1, line(body.end)).filter(Boolean).length;
  const found = [];
  const visit = (node, enclosing) => {
    const isFunction = ts.isFunctionLike(node) && node.body && ts.isBlock(node.body);
    if (isFunction) {
      const name = node.name?.getText(source) ??
        (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent) ? node.parent.name.getText(source) : '(anonymous)');
      const entry = { file, name, lines: codeLines(node.body), at: line(node.getStart(source)) + 1 };
      found.push(entry);
      // A function inside is its own: its body's lines and the two of its braces are not the enclosing one's.
      if (enclosing) enclosing.lines -= entry.lines + 2;
      ts.forEachChild(node, (child) => visit(child, entry));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, enclosing));
  };
  visit(source, undefined);
  return found;
}

/**
 * Each `create ... function` of SQL text: its name, its header (the lines up to the one that opens its body),
 * its whole length and its body's lines of code, and the line it starts at.
 */
export function sqlFunctionsIn(text) {
  const lines = text.split('\n');
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    const name = /^create (?:or replace )?function ([\w.]+)/.exec(lines[i])?.[1];
    if (!name) continue;
    let opens = i;
    while (opens < lines.length && !/\bas \$\$$/.test(lines[opens])) opens++;
    let end = opens;
    while (end < lines.length && !lines[end].startsWith('$$;')) end++;
    const code = lines.slice(opens + 1, end).filter((l) => isCode(l, '--')).length;
    found.push({ name, header: lines.slice(i, opens + 1), total: end - i + 1, code, at: i + 1 });
    i = end;
  }
  return found;
}

/** Each function of a SQL file: `{ file, name, lines }`, lines of code of its body. */
function sqlFunctions(file) {
  return sqlFunctionsIn(readFileSync(path.join(ROOT, file), 'utf8')).map(({ name, code, at }) => ({ file, name, lines: code, at }));
}

/** Every function of the functions and the schema, with its own length. */
export function functionLengths() {
  return [
    ...filesUnder('supabase/functions', '.ts').filter((f) => !f.endsWith('database.types.ts')).flatMap(typeScriptFunctions),
    ...filesUnder('supabase/schemas', '.sql').flatMap(sqlFunctions),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const min = Number(process.argv[2] ?? 60);
  const all = functionLengths();
  for (const f of all.filter((f) => f.lines >= min).sort((a, b) => b.lines - a.lines)) {
    console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.at}  ${f.name}`);
  }
  console.log(`${all.length} functions; the longest ${Math.max(...all.map((f) => f.lines))} lines`);
}
