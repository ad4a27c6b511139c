begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a completed run
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id from pgflow.start_flow('one_step', '{"x": 1}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'only');
create temp table snapshot as
select pgflow_tests.row_counts() as counts,
       (select count(*) from pgflow.run_events) as events,
       pgflow_tests.queue_count('one_step') as queued;

-- TEST: unknown run
select throws_ok(
  $$select * from pgflow.rerun_flow('00000000-0000-0000-0000-000000000000', 'alice', 'r')$$,
  'P0002', 'rerun_flow: run 00000000-0000-0000-0000-000000000000 does not exist', 'an unknown run raises P0002');

-- TEST: NULL or blank actor
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, '', 'r')$$, :'run_id'),
  '22023', 'rerun_flow: actor must name who acts (got '''')', 'an empty actor raises 22023');
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, ' ', 'r')$$, :'run_id'),
  '22023', 'rerun_flow: actor must name who acts (got '' '')', 'a blank actor raises 22023');
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, null, 'r')$$, :'run_id'),
  '22023', 'rerun_flow: actor must name who acts (got NULL)', 'a NULL actor raises 22023');

-- TEST: unknown expected_status
select throws_ok(
  format($$select * from pgflow.rerun_flow(%L, 'alice', 'r', 'done')$$, :'run_id'),
  '22023', 'rerun_flow: expected_status ''done'' is not a run status', 'an unknown expected_status raises 22023');

-- TEST: nothing written
select is(pgflow_tests.row_counts(), (select counts from snapshot), 'no run, step state or task was created');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');
select is(pgflow_tests.queue_count('one_step'), (select queued from snapshot), 'no message was sent');

select * from finish();
rollback;
