begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" 60 s (on_timeout fail, no handler); its deadline has passed and
-- a matching signal is pending (sent before the wait was fired).
select pgflow.create_flow('sw', max_attempts => 1);
select pgflow.add_step('sw', 'gate');
select pgflow.add_wait('sw', 'gate', 'go', timeout => 60, runs_handler => false);
select pgflow.add_step('sw', 'work');
select run_id from pgflow.start_flow('sw', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
insert into pgflow.signals (run_id, signal_name, payload, actor) values (:'run_id', 'go', '{"v": 1}', 'test');

-- TEST: the signal wins: the step completes with it, no timeout
select is(pgflow._resolve_waits(:'run_id'), 1, 'one wait resolved');
select is((select outcome from pgflow.wait_states where run_id = :'run_id'), 'signal', 'outcome signal, not timed_out');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('completed'::text, '{"v": 1}'::jsonb)$$, 'gate completed with the payload');
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run did not fail');

select * from finish();
rollback;
