begin;
select plan(3);

-- TEST: no SET clause (a SET clause stops the planner from inlining a SQL function)
select is(
  (select proconfig from pg_proc where oid = 'pgflow._now()'::regprocedure),
  null::text[],
  '_now() carries no setting');
select is(
  (select prolang = (select oid from pg_language where lanname = 'sql') and provolatile = 's'
   from pg_proc where oid = 'pgflow._now()'::regprocedure),
  true,
  '_now() is a stable SQL function');

-- TEST: a query that reads it gets its expression, not a call: outside tests the engine's
-- time costs a setting lookup
create temp table plan_lines (line text);
do $$
declare
  v_line text;
begin
  for v_line in execute 'explain (verbose, costs off) select pgflow._now()' loop
    insert into plan_lines values (v_line);
  end loop;
end
$$;
select ok(
  exists (select 1 from plan_lines where line like '%current_setting(''pgflow.test_clock''::text, true)%')
  and not exists (select 1 from plan_lines where line like '%pgflow._now()%'),
  'the plan holds the inlined expression');

select * from finish();
rollback;
