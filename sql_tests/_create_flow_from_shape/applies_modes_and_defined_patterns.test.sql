begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
  pgflow_tests.shape_step('guarded', 'single', '{}', 'skip-cascade', 'skip', '{"plan": "pro"}', '{"test": true}'),
  pgflow_tests.shape_step('plain', when_unmet => 'fail', when_exhausted => 'skip-cascade')));

-- TEST: defined patterns store their value; undefined ones stay NULL
select results_eq(
  $$ select required_input_pattern, forbidden_input_pattern, when_unmet, when_exhausted
     from pgflow.steps where step_slug = 'guarded' $$,
  $$ values ('{"plan": "pro"}'::jsonb, '{"test": true}'::jsonb, 'skip-cascade'::text, 'skip'::text) $$,
  'pattern values and modes are stored');
select results_eq(
  $$ select required_input_pattern, forbidden_input_pattern, when_unmet, when_exhausted
     from pgflow.steps where step_slug = 'plain' $$,
  $$ values (null::jsonb, null::jsonb, 'fail'::text, 'skip-cascade'::text) $$,
  '{"defined": false} patterns are stored as NULL');

select * from finish();
rollback;
