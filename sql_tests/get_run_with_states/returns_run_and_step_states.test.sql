begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{"x": 1}', 'aaaaaaaa-0000-0000-0000-000000000001');

-- TEST: {"run": <runs row>, "steps": [<step_states rows>]}
select is(
  (select array_agg(k order by k) from jsonb_object_keys(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001')) as k),
  array['run', 'steps'],
  'the result has exactly the keys run and steps');
select is(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'run',
  (select to_jsonb(r) from pgflow.runs as r where r.run_id = 'aaaaaaaa-0000-0000-0000-000000000001'),
  'run is the runs row as JSON');
select is(
  (select jsonb_agg(s order by s ->> 'step_slug')
   from jsonb_array_elements(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps') as s),
  (select jsonb_agg(to_jsonb(ss) order by ss.step_slug) from pgflow.step_states as ss where ss.run_id = 'aaaaaaaa-0000-0000-0000-000000000001'),
  'steps holds every step_states row of the run as JSON');
select is(jsonb_array_length(pgflow.get_run_with_states('aaaaaaaa-0000-0000-0000-000000000001') -> 'steps'), 3, 'one entry per step');

select * from finish();
rollback;
