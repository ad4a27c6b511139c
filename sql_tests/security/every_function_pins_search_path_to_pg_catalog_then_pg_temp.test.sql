begin;
select plan(2);

-- TEST: no function of schema pgflow runs with the caller's search_path
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and not exists (select 1 from unnest(p.proconfig) as c where c like 'search_path=%')
        order by 1),
  '{}'::text[],
  'every pgflow function pins search_path');

-- TEST: ... and pins it to pg_catalog, pg_temp: an empty search_path searches the
-- session's temporary schema first for type names (a pg_temp domain could shadow jsonb)
select is(
  array(select pgflow_tests.signature(p.oid) || ' ' || coalesce(p.proconfig::text, 'NULL')
        from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and p.proconfig is distinct from array['search_path=pg_catalog, pg_temp']
        order by 1),
  '{}'::text[],
  'every pgflow function runs with search_path = pg_catalog, pg_temp and no other setting');

select * from finish();
rollback;
