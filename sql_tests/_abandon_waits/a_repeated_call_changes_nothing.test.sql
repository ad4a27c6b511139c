begin;
select plan(5);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" (60 s); a run with gate waiting; the engine's time moves 30 s on
select pgflow.create_flow('gated', max_attempts => 1);
select pgflow.add_step('gated', 'gate');
select pgflow.add_wait('gated', 'gate', 'go', timeout => 60);
select run_id from pgflow.start_flow('gated', '{}'::jsonb) \gset
select pgflow.advance_clock(30);

-- TEST: the wait ends as abandoned at the engine's time
select pgflow._abandon_waits(array[:'run_id']::uuid[], array['gate']);
select results_eq(
  format($$select outcome, resolved_at, signal_id, error_message, deadline from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('abandoned'::text, now() + interval '30 seconds', null::bigint, null::text, now() + interval '60 seconds')$$,
  'abandoned at now() + 30 s; no signal, no error; the deadline is kept');

-- TEST: called again later, it changes nothing (resolved_at stays)
select pgflow.advance_clock(30);
create temp table after_first as select * from pgflow.wait_states;
select pgflow._abandon_waits(array[:'run_id']::uuid[], array['gate']);
select pgflow._abandon_waits(array[:'run_id']::uuid[]);
select set_eq($$select to_jsonb(w) from pgflow.wait_states as w$$, $$select to_jsonb(a) from after_first as a$$,
  'the wait row is unchanged by two more calls');

-- TEST: unknown runs or steps, and empty arrays, change nothing
select pgflow._abandon_waits(array[gen_random_uuid()]);
select pgflow._abandon_waits(array[:'run_id']::uuid[], array['nope']);
select pgflow._abandon_waits('{}'::uuid[], null);
select pgflow._abandon_waits(array[:'run_id']::uuid[], '{}'::text[]);
select set_eq($$select to_jsonb(w) from pgflow.wait_states as w$$, $$select to_jsonb(a) from after_first as a$$,
  'still unchanged');

-- TEST: an empty step_slugs array is not NULL: it names no step, so no open wait ends
select run_id as other from pgflow.start_flow('gated', '{}'::jsonb) \gset
select pgflow._abandon_waits(array[:'other']::uuid[], '{}'::text[]);
select is((select resolved_at from pgflow.wait_states where run_id = :'other'), null::timestamptz,
  'an empty step_slugs array ends no wait');
select is((select status from pgflow.step_states where run_id = :'other' and step_slug = 'gate'), 'waiting',
  'and gate still waits');

select * from finish();
rollback;
