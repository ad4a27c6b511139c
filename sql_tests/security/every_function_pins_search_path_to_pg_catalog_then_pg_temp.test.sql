begin;
select plan(3);

-- TEST: no function of schema pgflow runs with the caller's search_path, but _now(): a
-- one-expression SQL function inlined by the planner (a SET clause would stop that), every
-- name in it schema-qualified (sql_tests/_now/is_inlined_by_the_planner.test.sql)
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and not exists (select 1 from unnest(p.proconfig) as c where c like 'search_path=%')
        order by 1),
  array['_now()'],
  'every pgflow function pins search_path, but _now()');

-- TEST: ... and pins it to pg_catalog, pg_temp: an empty search_path searches the
-- session's temporary schema first for type names (a pg_temp domain could shadow jsonb)
select is(
  array(select pgflow_tests.signature(p.oid) || ' ' || coalesce(p.proconfig::text, 'NULL')
        from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and (p.proconfig)[1] is distinct from 'search_path=pg_catalog, pg_temp'
          and p.oid <> 'pgflow._now()'::regprocedure
        order by 1),
  '{}'::text[],
  'every pgflow function runs with search_path = pg_catalog, pg_temp');

-- TEST: the only other settings are the planner settings of the entry points that drive
-- batches, all set in extension/sql/910_planner_settings.sql
select is(
  array(select pgflow_tests.signature(p.oid) || ' ' || p.proconfig[2:]::text
        from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and cardinality(p.proconfig) > 1
        order by 1),
  array[
    'complete_tasks(uuid[],text[],integer[],jsonb[],integer[]) {enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off,join_collapse_limit=1,from_collapse_limit=1,jit=off,plan_cache_mode=force_generic_plan}',
    'fail_tasks(uuid[],text[],integer[],text[],integer[],boolean[],text[]) {enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off,join_collapse_limit=1,from_collapse_limit=1,jit=off,plan_cache_mode=force_generic_plan}',
    'read_and_start_tasks(text,uuid,integer,integer,text[]) {enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off,join_collapse_limit=1,from_collapse_limit=1,jit=off,plan_cache_mode=force_generic_plan}',
    'start_flow(text,jsonb,uuid,text,text,timestamp with time zone) {enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off,join_collapse_limit=1,from_collapse_limit=1,jit=off,plan_cache_mode=force_generic_plan}',
    'start_tasks(text,bigint[],uuid) {enable_seqscan=off,enable_hashjoin=off,enable_mergejoin=off,join_collapse_limit=1,from_collapse_limit=1,jit=off,plan_cache_mode=force_generic_plan}'
  ],
  'no other function carries a setting');

select * from finish();
rollback;
