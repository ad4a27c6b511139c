begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: runs of a one-step flow, ten days old: completed, failed, cancelled, started and
-- paused; and a completed run of today. Timestamps moved back consistently.
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as c_old from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'c_old', 'only');
select run_id as f_old from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'f_old', 'only');
select run_id as x_old from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'x_old', 'alice', 'not needed');
select run_id as s_old from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as p_old from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'p_old', 'alice', 'hold');
select run_id as c_new from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'c_new', 'only');
update pgflow.runs
set started_at = started_at - interval '10 days', completed_at = completed_at - interval '10 days',
    failed_at = failed_at - interval '10 days', cancelled_at = cancelled_at - interval '10 days',
    paused_at = paused_at - interval '10 days'
where run_id in (:'c_old', :'f_old', :'x_old', :'s_old', :'p_old');
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L, %L, %L, %L, %L) order by status$$,
         :'c_old', :'f_old', :'x_old', :'s_old', :'p_old', :'c_new'),
  $$values ('cancelled'::text), ('completed'), ('completed'), ('failed'), ('paused'), ('started')$$,
  'precondition: the six runs are in the statuses wanted');
create temp table kept_events as
select * from pgflow.run_events where run_id in (:'s_old', :'p_old', :'c_new');
select ok((select count(*) from pgflow.run_events where run_id in (:'c_old', :'f_old', :'x_old')) >= 6,
  'precondition: the old finished runs have events');

select pgflow.prune_data_older_than(interval '7 days');

-- TEST: the events of the runs completed, failed and cancelled before the cutoff are gone
-- with them
select is((select count(*)::int from pgflow.run_events where run_id in (:'c_old', :'f_old', :'x_old')), 0,
  'no event left of the old completed, failed and cancelled runs');
select is((select count(*)::int from pgflow.runs where run_id in (:'c_old', :'f_old', :'x_old')), 0,
  'the runs are deleted');

-- TEST: those of the old started and paused runs and of the recent run are all kept
select set_eq(
  $$select * from pgflow.run_events where run_id in (select run_id from kept_events)$$,
  $$select * from kept_events$$,
  'every event of the started, paused and recent runs is kept');

select * from finish();
rollback;
