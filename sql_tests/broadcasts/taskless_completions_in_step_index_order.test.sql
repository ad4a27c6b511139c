begin;
select plan(1);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: three root maps completed in the same cascade round; slugs deliberately not in
-- alphabetical order of definition
select pgflow.create_flow('same_round');
select pgflow.add_step('same_round', 'zulu', step_type => 'map');
select pgflow.add_step('same_round', 'alpha', step_type => 'map');
select pgflow.add_step('same_round', 'mike', step_type => 'map');
select run_id from pgflow.start_flow('same_round', '[]'::jsonb) \gset

-- TEST: completions of one round are broadcast in step_index order
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:zulu:completed', 'step:alpha:completed', 'step:mike:completed', 'run:completed'],
  'taskless steps completed together are broadcast in step_index (definition) order'
);

select * from finish();
rollback;
