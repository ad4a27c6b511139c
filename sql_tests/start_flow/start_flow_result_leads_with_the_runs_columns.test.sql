begin;
select plan(4);

-- TEST: the leading fields of start_flow_result are the columns of pgflow.runs, in order,
-- with the same names and types (pg_attribute, dropped columns left out)
select results_eq(
  $$select f.attname::text collate "default", format_type(f.atttypid, f.atttypmod)
    from (select a.*, row_number() over (order by a.attnum) as pos from pg_attribute as a
          where a.attrelid = 'pgflow.start_flow_result'::regclass and a.attnum > 0 and not a.attisdropped) as f
    where f.pos <= (select count(*) from pg_attribute as c
                    where c.attrelid = 'pgflow.runs'::regclass and c.attnum > 0 and not c.attisdropped)
    order by f.pos$$,
  $$select a.attname::text collate "default", format_type(a.atttypid, a.atttypmod) from pg_attribute as a
    where a.attrelid = 'pgflow.runs'::regclass and a.attnum > 0 and not a.attisdropped
    order by a.attnum$$,
  'start_flow_result begins with every column of pgflow.runs, same names, types and order'
);

-- TEST: then exactly one more field: duplicate boolean
select results_eq(
  $$select f.attname::text collate "default", format_type(f.atttypid, f.atttypmod)
    from (select a.*, row_number() over (order by a.attnum) as pos from pg_attribute as a
          where a.attrelid = 'pgflow.start_flow_result'::regclass and a.attnum > 0 and not a.attisdropped) as f
    where f.pos > (select count(*) from pg_attribute as c
                   where c.attrelid = 'pgflow.runs'::regclass and c.attnum > 0 and not c.attisdropped)
    order by f.pos$$,
  $$values ('duplicate'::text, 'boolean'::text)$$,
  'after them comes only duplicate boolean'
);

-- TEST: start_flow returns that type (select * reads as upstream's runs row, then duplicate)
select is(
  (select pg_get_function_result(p.oid) from pg_proc as p
   where p.oid = 'pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz)'::regprocedure),
  'SETOF pgflow.start_flow_result',
  'start_flow returns setof pgflow.start_flow_result'
);
select is(
  (select count(*)::int from pg_proc as p join pg_namespace as n on n.oid = p.pronamespace
   where n.nspname = 'pgflow' and p.proname = 'start_flow'),
  1,
  'start_flow has one signature (the keyed arguments are trailing defaults, no overload)'
);

select * from finish();
rollback;
