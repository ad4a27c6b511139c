begin;
select plan(7);

-- TEST: the functions that run with their caller's search_path are internal helpers (a name
-- starting with _), never SECURITY DEFINER
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and not exists (select 1 from unnest(p.proconfig) as c where c like 'search_path=%')
          and (not starts_with(p.proname::text, '_') or p.prosecdef)
        order by 1),
  '{}'::text[],
  'every pgflow function without a pinned search_path is an internal helper, not SECURITY DEFINER');

-- TEST: ... and no role but their owner may execute them (so every other session reaches
-- them only through a function whose search_path is pinned), but _now(): a one-expression
-- SQL function inlined by the planner (a SET clause would stop that), every name in it
-- schema-qualified (sql_tests/_now/is_inlined_by_the_planner.test.sql)
select is(
  array(select distinct pgflow_tests.signature(p.oid) || ' ' || case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end
        from pg_proc as p
        cross join lateral aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) as a
        where p.pronamespace = 'pgflow'::regnamespace
          and not exists (select 1 from unnest(p.proconfig) as c where c like 'search_path=%')
          and a.grantee <> p.proowner
          and p.oid <> 'pgflow._now()'::regprocedure
        order by 1),
  '{}'::text[],
  'no role but the owner may execute a function without a pinned search_path, but _now()');

-- TEST: the check above is not vacuous: the report path's helpers are among them
select ok(
  (select count(*) from pg_proc as p
   where p.oid in ('pgflow._complete_tasks(int[], uuid[], text[], int[], jsonb[], int[])'::regprocedure,
                   'pgflow._lock_task_reports(uuid[])'::regprocedure)
     and p.proconfig is null) = 2,
  '_complete_tasks and _lock_task_reports run with their caller''s search_path');

-- TEST: the two internal functions that something other than a pgflow function calls stay
-- pinned: _test_clock_now (roles execute it through _now) and _start_scheduled_flow (the
-- pg_cron job of a schedule runs it in a session of its own)
select is(
  array(select pgflow_tests.signature(p.oid) || ' ' || coalesce(p.proconfig::text, 'NULL')
        from pg_proc as p
        where p.oid in ('pgflow._test_clock_now()'::regprocedure,
                        'pgflow._start_scheduled_flow(text)'::regprocedure)
        order by 1),
  array['_start_scheduled_flow(text) {"search_path=pg_catalog, pg_temp"}',
        '_test_clock_now() {"search_path=pg_catalog, pg_temp"}'],
  'the internal entry points _test_clock_now and _start_scheduled_flow pin search_path');

-- TEST: ... and the schedule's job calls _start_scheduled_flow and nothing else of pgflow
select ok(
  (select prosrc from pg_proc where oid = 'pgflow.schedule_flow(text, text, jsonb, text)'::regprocedure)
    like '%''select pgflow._start_scheduled_flow(%L)''%',
  'a schedule''s pg_cron command is select pgflow._start_scheduled_flow(<name>)');

-- TEST: every function that pins search_path pins it to pg_catalog, pg_temp: an empty
-- search_path searches the session's temporary schema first for type names (a pg_temp
-- domain could shadow jsonb)
select is(
  array(select pgflow_tests.signature(p.oid) || ' ' || p.proconfig::text
        from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and p.proconfig is not null
          and p.proconfig[1] is distinct from 'search_path=pg_catalog, pg_temp'
        order by 1),
  '{}'::text[],
  'every pinned pgflow function runs with search_path = pg_catalog, pg_temp');

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
