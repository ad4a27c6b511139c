begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow "gs": h (waits for "go", handler); t (waits for "go" 60 s, continue); nap (a
-- timer); plain (no wait).
select pgflow.create_flow('gs', max_attempts => 1);
select pgflow.add_step('gs', 'h');
select pgflow.add_wait('gs', 'h', 'go');
select pgflow.add_step('gs', 't');
select pgflow.add_wait('gs', 't', 'never', timeout => 60, on_timeout => 'continue');
select pgflow.add_step('gs', 'nap');
select pgflow.add_timer('gs', 'nap', seconds => 60);
select pgflow.add_step('gs', 'plain');
select run_id from pgflow.start_flow('gs', '{}'::jsonb) \gset

-- TEST: no row while the step waits
select is((select count(*)::int from pgflow.get_step_signal(:'run_id', 'h')), 0, 'no row while h waits');

-- TEST: the signal taken: (signal_id, name, payload, received_at, timed_out false)
select signal_id, received_at from pgflow.send_signal(:'run_id', 'go', '{"who": "dan"}') \gset
select results_eq(
  format($$select * from pgflow.get_step_signal(%L, 'h')$$, :'run_id'),
  format($$values (%s::bigint, 'go'::text, '{"who": "dan"}'::jsonb, %L::timestamptz, false)$$, :'signal_id', :'received_at'),
  'h: the signal it took, timed_out false');

-- TEST: a wait that timed out with continue: (NULL, awaited name, NULL, NULL, true)
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select count(*) from pgflow.tick();
select results_eq(
  format($$select * from pgflow.get_step_signal(%L, 't')$$, :'run_id'),
  $$values (null::bigint, 'never'::text, null::jsonb, null::timestamptz, true)$$,
  't: timed out, no signal');

-- TEST: no row for a timer, a step without wait, an unknown step or run
select is((select outcome from pgflow.wait_states where run_id = :'run_id' and step_slug = 'nap'), 'due', 'nap fired');
select is((select count(*)::int from pgflow.get_step_signal(:'run_id', 'nap')), 0, 'no row for a timer');
select is((select count(*)::int from pgflow.get_step_signal(:'run_id', 'plain')), 0, 'no row for a step without wait');
select is((select count(*)::int from pgflow.get_step_signal(:'run_id', 'nope')), 0, 'no row for an unknown step');
select is((select count(*)::int from pgflow.get_step_signal('00000000-0000-0000-0000-000000000000', 'h')), 0,
  'no row for an unknown run');

select * from finish();
rollback;
