begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: prep -> later; a run, prep still running.
select pgflow.create_flow('dd', max_attempts => 1);
select pgflow.add_step('dd', 'prep');
select pgflow.add_step('dd', 'later', array['prep']);
select run_id from pgflow.start_flow('dd', '{"at": "2031-01-01T00:00:00Z"}'::jsonb) \gset

-- TEST: a dependency that has not completed has nothing to read
select results_eq(
  format($$select due_at, error_message from pgflow._timer_due_at(%L, 'prep.ship.by')$$, :'run_id'),
  $$values (null::timestamptz, 'Timer: prep.ship.by is not an ISO 8601 timestamp (got nothing)'::text)$$,
  'prep still running: got nothing');

-- TEST: once completed, its output is read at the path
select pgflow_tests.start_and_complete_task(:'run_id', 'prep', 0, '{"ship": {"by": "2032-03-04T05:06:07+01:00"}}'::jsonb);
select results_eq(
  format($$select due_at, error_message from pgflow._timer_due_at(%L, 'prep.ship.by')$$, :'run_id'),
  $$values ('2032-03-04 04:06:07+00'::timestamptz, null::text)$$,
  'prep.ship.by read from prep''s output');

-- TEST: input.<key> reads the run input; an unknown run has nothing
select results_eq(
  format($$select due_at, error_message from pgflow._timer_due_at(%L, 'input.at')$$, :'run_id'),
  $$values ('2031-01-01 00:00:00+00'::timestamptz, null::text)$$, 'input.at read from the run input');
select results_eq(
  $$select due_at, error_message from pgflow._timer_due_at('00000000-0000-0000-0000-000000000000', 'input.at')$$,
  $$values (null::timestamptz, 'Timer: input.at is not an ISO 8601 timestamp (got nothing)'::text)$$,
  'an unknown run: got nothing (never raises)');

select * from finish();
rollback;
