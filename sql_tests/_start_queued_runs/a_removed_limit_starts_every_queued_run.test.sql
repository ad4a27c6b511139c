begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 1 run per key; a holder and two queued runs
select pgflow_tests.limited_flow('lim', 1, 'queue');
select pgflow_tests.keyed_run('lim', 'ck');
select pgflow_tests.keyed_run('lim', 'ck');
select pgflow_tests.keyed_run('lim', 'ck');

-- TEST: the flow's limit is removed: every queued run starts (the holder still running)
update pgflow.flows set opt_concurrency_limit = null where flow_slug = 'lim';
select is(pgflow._start_queued_runs('lim', 'ck'), 2, 'both queued runs start');
select results_eq(
  $$select status, count(*)::int from pgflow.runs group by status$$,
  $$values ('started'::text, 3)$$,
  'all three runs are started'
);
select is((select count(*)::int from pgflow.step_tasks), 3, 'each has its root task');

select * from finish();
rollback;
