begin;
select plan(6);

-- SETUP: flow stats_a with a run completed 30 minutes ago
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
with r as (
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
  values ('stats_a', 'completed', '{}', now() - interval '31 minutes', now() - interval '30 minutes')
  returning *)
insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at, completed_at)
select r.flow_slug, r.run_id, 's1', 'completed', 0, r.started_at, r.started_at, r.completed_at from r;

-- TEST: pgflow_client and pgflow_operator may call it (SECURITY DEFINER: it writes the
-- stats they cannot write themselves)
select is(pgflow_tests.sqlstate_as('pgflow_client',
  $$select * from pgflow.get_step_stats('stats_a', now() - interval '1 hour')$$), '00000', 'pgflow_client may call it');
select ok((select count(*) from pgflow.stats_buckets) > 0, 'the client''s call wrote the closed buckets');
select is(pgflow_tests.sqlstate_as('pgflow_operator',
  $$select * from pgflow.get_step_stats('stats_a', now() - interval '1 hour')$$), '00000', 'pgflow_operator may call it');

-- TEST: the result a client gets is the same as the owner's
set local role pgflow_client;
select results_eq($$select step_slug, completed from pgflow.get_step_stats('stats_a', now() - interval '1 hour')$$,
  $$values ('s1'::text, 1::bigint)$$, 'as pgflow_client: s1 completed once');
reset role;

-- TEST: pgflow_worker may not
select is(pgflow_tests.sqlstate_as('pgflow_worker',
  $$select * from pgflow.get_step_stats('stats_a', now() - interval '1 hour')$$), '42501', 'pgflow_worker: 42501');
select ok(not has_function_privilege('pgflow_worker', 'pgflow.get_step_stats(text, timestamptz)', 'execute'),
  'pgflow_worker has no EXECUTE on it');

select * from finish();
rollback;
