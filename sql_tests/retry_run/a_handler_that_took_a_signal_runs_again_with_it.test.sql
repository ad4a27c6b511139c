begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: prep -> book (waits for "paid", handler, on_timeout continue) -> after. book took
-- the signal, then its handler failed for good, which failed the run.
select pgflow.create_flow('rk', max_attempts => 1);
select pgflow.add_step('rk', 'prep');
select pgflow.add_step('rk', 'book', array['prep']);
select pgflow.add_wait('rk', 'book', 'paid', timeout => 60, on_timeout => 'continue');
select pgflow.add_step('rk', 'after', array['book']);
select run_id from pgflow.start_flow('rk', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'prep', 0, '"p"'::jsonb);
select signal_id from pgflow.send_signal(:'run_id', 'paid', '{"reference": "P-7"}') \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'book', 0, 'KeyError');
select results_eq(
  format($$select r.status, ss.status from pgflow.runs as r join pgflow.step_states as ss using (run_id)
           where r.run_id = %L and ss.step_slug = 'book'$$, :'run_id'),
  $$values ('failed'::text, 'failed'::text)$$, 'setup: book''s handler failed the run');

-- TEST: retry_run: book does not wait again; its handler runs again with the signal it took
select results_eq(
  format($$select status, changed from pgflow.retry_run(%L, 'alice', 'handler fixed')$$, :'run_id'),
  $$values ('started'::text, true)$$, 'retry_run restarts the run');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'book'), 'started',
  'book is started at once (not waiting)');
select is(pgflow_tests.queue_count('rk'), 1::bigint, 'its task has a message again');
select results_eq(
  format($$select signal_id, payload, timed_out from pgflow.get_step_signal(%L, 'book')$$, :'run_id'),
  format($$values (%s::bigint, '{"reference": "P-7"}'::jsonb, false)$$, :'signal_id'),
  'get_step_signal still gives the signal book took');
select results_eq(
  format($$select outcome, signal_id from pgflow.wait_states where run_id = %L$$, :'run_id'),
  format($$values ('signal'::text, %s::bigint)$$, :'signal_id'), 'the wait keeps its outcome');
select is((select count(*) from pgflow.signals where run_id = :'run_id' and status = 'pending'), 0::bigint,
  'no signal is needed, none is pending');

-- TEST: the handler succeeds this time and the run completes
select pgflow_tests.start_and_complete_task(:'run_id', 'book', 0, '"b"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'after', 0, '"a"'::jsonb);
select is((select status from pgflow.runs where run_id = :'run_id'), 'completed', 'the run completes');

select * from finish();
rollback;
