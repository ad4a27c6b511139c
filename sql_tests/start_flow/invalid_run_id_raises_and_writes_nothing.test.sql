begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');

-- TEST: a run_id that is not a uuid is rejected
select throws_ok(
  $$select * from pgflow.start_flow('sequential', '{}'::jsonb, 'not-a-uuid')$$,
  '22P02',
  null,
  'a malformed run_id raises invalid_text_representation'
);
select is((select count(*)::int from pgflow.runs), 0, 'no run is created for a malformed run_id');

-- TEST: reusing a run_id is rejected and leaves the first run alone
select lives_ok(
  $$select * from pgflow.start_flow('sequential', '{"n": 1}'::jsonb,
      '00000000-0000-0000-0000-0000000000bb'::uuid)$$,
  'the first run with this run_id starts'
);
select throws_ok(
  $$select * from pgflow.start_flow('sequential', '{"n": 2}'::jsonb,
      '00000000-0000-0000-0000-0000000000bb'::uuid)$$,
  '23505',
  'Run 00000000-0000-0000-0000-0000000000bb already exists',
  'a second run with the same run_id raises a unique violation that names the run'
);
select is(
  (select input from pgflow.runs where run_id = '00000000-0000-0000-0000-0000000000bb'),
  '{"n": 1}'::jsonb,
  'the first run keeps its input'
);
select is(
  (select count(*)::int from pgflow.step_tasks),
  1,
  'no extra task is created by the rejected call'
);
select is(
  (select count(*)::int from pgflow.step_states),
  (select count(*)::int from pgflow.steps where flow_slug = 'sequential'),
  'no extra step state is created by the rejected call'
);

select * from finish();
rollback;
