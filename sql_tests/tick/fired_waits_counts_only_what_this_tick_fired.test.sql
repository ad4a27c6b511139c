begin;
select plan(2);
select pgflow_tests.reset_db();

-- tick returns fired_waits: the waits it fired. A wait of the same run resolved earlier in
-- the same transaction (here a 0-second timer fired by start_flow) is not one of them.

-- SETUP: nap (timer 0 s: fires at start), gate (waits for "go" 60 s, on_timeout skip), work.
select pgflow.create_flow('fc', max_attempts => 1);
select pgflow.add_step('fc', 'nap');
select pgflow.add_timer('fc', 'nap', seconds => 0);
select pgflow.add_step('fc', 'gate');
select pgflow.add_wait('fc', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('fc', 'work');
select run_id from pgflow.start_flow('fc', '{}'::jsonb) \gset
select is((select outcome from pgflow.wait_states where run_id = :'run_id' and step_slug = 'nap'), 'due',
  'setup: nap fired inside start_flow');
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id' and step_slug = 'gate';

-- TEST: the tick fires gate only, and says so
select results_eq($$select * from pgflow.tick()$$, $$values (true, 1, 0, 0, 0, 0)$$,
  'fired_waits = 1 (gate), not counting nap fired before in this transaction');

select * from finish();
rollback;
