// What a database's schema is, as comparable text: one row per object (or per object's part: a column, a
// grant), keyed by its kind and schema-qualified name, with its definition as PostgreSQL prints it. Two
// databases hold the same schema when their rows are equal; the drift test compares the one built from
// supabase/schemas/ with the one built by the migrations. No schema-diff package on npm works without
// Docker or a JVM and covers policies, grants and publications, so this is the query.

const SKIPPED_SCHEMAS = `('pg_catalog', 'information_schema', 'pg_toast', 'supabase_migrations')`;
const OWN_NAMESPACE = (column) => `${column} in (select oid from pg_namespace where nspname not in ${SKIPPED_SCHEMAS}
  and nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%')`;

/** Each catalogue compared, as a query returning `name` and `definition`. */
export const CATALOGUES = {
  schemas: `
    select n.nspname as name, concat_ws(' ', 'owner', n.nspowner::regrole, 'acl', n.nspacl::text) as definition
    from pg_namespace n where ${OWN_NAMESPACE('n.oid')}`,
  extensions: `
    select e.extname as name, e.extnamespace::regnamespace::text as definition from pg_extension e`,
  types: `
    select format('%s.%s', t.typnamespace::regnamespace, t.typname) as name,
           concat_ws(' ', t.typtype, format_type(t.typbasetype, t.typtypmod),
             (select string_agg(quote_literal(e.enumlabel), ', ' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid),
             'acl', t.typacl::text) as definition
    from pg_type t
    where ${OWN_NAMESPACE('t.typnamespace')} and t.typtype in ('e', 'd')`,
  relations: `
    select c.oid::regclass::text as name,
           concat_ws(' ', c.relkind, 'owner', c.relowner::regrole, 'rls', c.relrowsecurity, 'force', c.relforcerowsecurity,
             'options', c.reloptions::text, 'acl', c.relacl::text, 'persistence', c.relpersistence) as definition
    from pg_class c
    where ${OWN_NAMESPACE('c.relnamespace')} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
  columns: `
    select format('%s.%s', a.attrelid::regclass, a.attname) as name,
           concat_ws(' ', 'position', row_number() over (partition by a.attrelid order by a.attnum),
             format_type(a.atttypid, a.atttypmod), case when a.attnotnull then 'not null' end,
             case when a.attgenerated = 's' then 'generated' end, case when a.attidentity <> '' then 'identity ' || a.attidentity::text end,
             'default', pg_get_expr(d.adbin, d.adrelid), 'collation', nullif(a.attcollation, 0)::regcollation::text,
             'acl', a.attacl::text) as definition
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where ${OWN_NAMESPACE('c.relnamespace')} and c.relkind in ('r', 'p', 'v', 'm', 'f') and a.attnum > 0 and not a.attisdropped`,
  constraints: `
    select format('%s on %s', co.conname, coalesce(co.conrelid::regclass::text, co.contypid::regtype::text)) as name,
           pg_get_constraintdef(co.oid) || case when co.condeferrable then ' deferrable' else '' end as definition
    from pg_constraint co
    where ${OWN_NAMESPACE('co.connamespace')}`,
  indexes: `
    select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where ${OWN_NAMESPACE('c.relnamespace')}`,
  functions: `
    select p.oid::regprocedure::text as name,
           concat_ws(E'\\n', pg_get_functiondef(p.oid), 'owner ' || p.proowner::regrole, 'acl ' || p.proacl::text) as definition
    from pg_proc p
    where ${OWN_NAMESPACE('p.pronamespace')} and p.prokind in ('f', 'p', 'w')`,
  aggregates: `
    select p.oid::regprocedure::text as name, concat_ws(' ', a.aggtransfn::regproc, a.aggfinalfn::regproc,
             format_type(a.aggtranstype, null), a.agginitval, 'acl', p.proacl::text) as definition
    from pg_proc p join pg_aggregate a on a.aggfnoid = p.oid
    where ${OWN_NAMESPACE('p.pronamespace')}`,
  views: `
    select c.oid::regclass::text as name, pg_get_viewdef(c.oid, true) as definition
    from pg_class c where ${OWN_NAMESPACE('c.relnamespace')} and c.relkind in ('v', 'm')`,
  sequences: `
    select s.seqrelid::regclass::text as name,
           concat_ws(' ', format_type(s.seqtypid, null), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle,
             'owned by', (select format('%s.%s', d.refobjid::regclass, a.attname) from pg_depend d
               join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
               where d.objid = s.seqrelid and d.classid = 'pg_class'::regclass and d.deptype in ('a', 'i'))) as definition
    from pg_sequence s join pg_class c on c.oid = s.seqrelid where ${OWN_NAMESPACE('c.relnamespace')}`,
  triggers: `
    select format('%s on %s', t.tgname, t.tgrelid::regclass) as name,
           pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text as definition
    from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where ${OWN_NAMESPACE('c.relnamespace')} and not t.tgisinternal`,
  event_triggers: `
    select e.evtname as name, concat_ws(' ', e.evtevent, e.evtfoid::regproc, e.evtenabled, e.evttags::text) as definition
    from pg_event_trigger e`,
  policies: `
    select format('%s on %s.%s', p.policyname, p.schemaname, p.tablename) as name,
           concat_ws(' ', p.permissive, p.cmd, 'to', p.roles::text, 'using', p.qual, 'with check', p.with_check) as definition
    from pg_policies p where p.schemaname not in ${SKIPPED_SCHEMAS}`,
  default_privileges: `
    select format('%s in %s for %s', d.defaclrole::regrole, coalesce(d.defaclnamespace::regnamespace::text, 'all schemas'),
             d.defaclobjtype) as name, d.defaclacl::text as definition
    from pg_default_acl d`,
  publications: `
    select p.pubname as name,
           concat_ws(' ', 'all tables', p.puballtables, 'insert', p.pubinsert, 'update', p.pubupdate, 'delete', p.pubdelete,
             'truncate', p.pubtruncate, 'tables',
             (select string_agg(format('%s.%s', t.schemaname, t.tablename), ', ' order by t.schemaname, t.tablename)
              from pg_publication_tables t where t.pubname = p.pubname)) as definition
    from pg_publication p`,
  comments: `
    select pg_describe_object(d.classoid, d.objoid, d.objsubid) as name, d.description as definition
    from pg_description d
    where d.objoid >= 16384`,
};

/**
 * The schema of the database `sql` (a postgres.js client) reaches: `{ catalogue: Map(name → definition) }`.
 * Comments are kept for objects made after initdb (OIDs from 16384): the built-in ones carry PostgreSQL's own.
 */
export async function readSchema(sql) {
  // With an empty search path every name is printed schema-qualified (`public.orders`, not `orders`).
  await sql.unsafe(`select set_config('search_path', '', false)`);
  const schema = {};
  for (const [catalogue, query] of Object.entries(CATALOGUES)) {
    const rows = await sql.unsafe(query);
    schema[catalogue] = new Map(rows.map((row) => [row.name, row.definition ?? '']));
  }
  return schema;
}

/** Every difference between two schemas, one line each, naming the catalogue and the object. */
export function schemaDifferences(expected, actual, { expectedName = 'schema files', actualName = 'migrations' } = {}) {
  const differences = [];
  for (const catalogue of Object.keys(CATALOGUES)) {
    const left = expected[catalogue];
    const right = actual[catalogue];
    for (const [name, definition] of left) {
      if (!right.has(name)) differences.push(`${catalogue}: ${name} is only in the ${expectedName}`);
      else if (right.get(name) !== definition) {
        differences.push(`${catalogue}: ${name} differs (- ${expectedName}, + ${actualName})\n${lineDifference(definition, right.get(name))}`);
      }
    }
    for (const name of right.keys()) {
      if (!left.has(name)) differences.push(`${catalogue}: ${name} is only in the ${actualName}`);
    }
  }
  return differences;
}

/** The lines of two definitions that differ, `-` for the first and `+` for the second. */
function lineDifference(left, right) {
  const leftLines = left.split('\n');
  const rightLines = right.split('\n');
  const rightSet = new Set(rightLines);
  const leftSet = new Set(leftLines);
  return [
    ...leftLines.filter((line) => !rightSet.has(line)).map((line) => `  - ${line}`),
    ...rightLines.filter((line) => !leftSet.has(line)).map((line) => `  + ${line}`),
  ].join('\n');
}
