begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow gates: two root steps waiting for a signal each (gate_a for "a", gate_b for "b",
-- 60 s); two runs r1 and r2, both gates waiting. In r2, gate_a has already taken its signal.
select pgflow.create_flow('gates', max_attempts => 1);
select pgflow.add_step('gates', 'gate_a');
select pgflow.add_wait('gates', 'gate_a', 'a');
select pgflow.add_step('gates', 'gate_b');
select pgflow.add_wait('gates', 'gate_b', 'b', timeout => 60);
select run_id as r1 from pgflow.start_flow('gates', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('gates', '{}'::jsonb) \gset
select count(*) from pgflow.send_signal(:'r2', 'a', '{"n": 1}');
select max(id) as mark from pgflow.run_events \gset
create temp table states_before as select * from pgflow.step_states;
-- Each wait of run r as (step_slug, outcome, resolved now?), by step.
create function pg_temp.waits(r uuid) returns table (step_slug text, outcome text, resolved_now boolean)
language sql as $$
  select ws.step_slug, ws.outcome, ws.resolved_at = now() from pgflow.wait_states as ws
  where ws.run_id = r order by ws.step_slug
$$;

-- TEST: with step_slugs, only those steps' open waits of the runs end, as abandoned, now
select pgflow._abandon_waits(array[:'r1', :'r2']::uuid[], array['gate_b']);
select results_eq(format('select * from pg_temp.waits(%L)', :'r1'),
  $$values ('gate_a'::text, null::text, null::boolean), ('gate_b', 'abandoned', true)$$,
  'r1: gate_b abandoned now, gate_a still open');
select results_eq(format('select * from pg_temp.waits(%L)', :'r2'),
  $$values ('gate_a'::text, 'signal'::text, true), ('gate_b', 'abandoned', true)$$,
  'r2: gate_b abandoned; gate_a keeps its signal');

-- TEST: without step_slugs, every open wait of the given runs ends; a resolved one is kept
select pgflow._abandon_waits(array[:'r2']::uuid[]);
select results_eq(format('select * from pg_temp.waits(%L)', :'r2'),
  $$values ('gate_a'::text, 'signal'::text, true), ('gate_b', 'abandoned', true)$$,
  'r2: nothing open was left; the signal outcome of gate_a is kept');
select results_eq(format('select * from pg_temp.waits(%L)', :'r1'),
  $$values ('gate_a'::text, null::text, null::boolean), ('gate_b', 'abandoned', true)$$,
  'r1 (not given) keeps its open wait');
select pgflow._abandon_waits(array[:'r1']::uuid[], null);
select is((select count(*)::int from pgflow.wait_states where resolved_at is null), 0,
  'NULL step_slugs: r1''s last open wait ends too');

-- TEST: only wait_states change: the steps stay as they were and no event is recorded (the
-- callers move the steps)
select ok(
  (select count(*) from pgflow.run_events where id > :mark) = 0
  and (select count(*) from (select * from pgflow.step_states except select * from states_before) as d) = 0,
  'no step state changed, no run_events row written');

select * from finish();
rollback;
