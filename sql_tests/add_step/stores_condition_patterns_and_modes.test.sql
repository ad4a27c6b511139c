begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'guarded',
  required_input_pattern => '{"kind": "paid"}',
  forbidden_input_pattern => '{"test": true}',
  when_unmet => 'skip-cascade',
  when_exhausted => 'skip');
select pgflow.add_step('flow_a', 'strict', when_unmet => 'fail', when_exhausted => 'skip-cascade');

-- TEST: patterns and modes are stored as given
select results_eq(
  $$ select required_input_pattern, forbidden_input_pattern, when_unmet, when_exhausted
     from pgflow.steps where step_slug = 'guarded' $$,
  $$ values ('{"kind": "paid"}'::jsonb, '{"test": true}'::jsonb, 'skip-cascade'::text, 'skip'::text) $$,
  'required/forbidden patterns and skip-cascade / skip are stored');
select results_eq(
  $$ select when_unmet, when_exhausted from pgflow.steps where step_slug = 'strict' $$,
  $$ values ('fail'::text, 'skip-cascade'::text) $$,
  'fail / skip-cascade are stored');

select * from finish();
rollback;
