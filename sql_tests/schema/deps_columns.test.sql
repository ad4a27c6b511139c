begin;
select plan(4);

-- TEST: columns in physical order with their types (as upstream's table, compat/UPSTREAM.md)
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.deps') $$,
  $$ values ('flow_slug', 'text'),
            ('dep_slug', 'text'),
            ('step_slug', 'text'),
            ('created_at', 'timestamp with time zone') $$,
  'pgflow.deps has columns flow_slug, dep_slug, step_slug, created_at in this order');
select col_is_pk('pgflow', 'deps', array['flow_slug', 'dep_slug', 'step_slug'],
  'the primary key is (flow_slug, dep_slug, step_slug)');
select col_default_is('pgflow', 'deps', 'created_at', 'now()', 'created_at defaults to now()');

-- TEST: both ends of an edge reference pgflow.steps
select is(
  (select array_agg(fk.columns order by fk.columns)
   from (select array_to_string(array(select a.attname from unnest(c.conkey) with ordinality as k(n, o)
                                      join pg_attribute as a on a.attrelid = c.conrelid and a.attnum = k.n
                                      order by k.o), ',') as columns
         from pg_constraint as c
         where c.conrelid = 'pgflow.deps'::regclass and c.contype = 'f'
           and c.confrelid = 'pgflow.steps'::regclass) as fk),
  array['flow_slug,dep_slug', 'flow_slug,step_slug'],
  'deps has foreign keys (flow_slug, dep_slug) and (flow_slug, step_slug) to pgflow.steps');

select * from finish();
rollback;
