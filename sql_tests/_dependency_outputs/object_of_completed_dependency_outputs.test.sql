begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root_a, root_b -> last
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{"in": 0}'::jsonb) \gset

-- TEST: nothing completed: {}
select is(pgflow._dependency_outputs(:'run_id', 'two_roots', 'last'), '{}'::jsonb, '{} while no dependency completed');

-- TEST: one completed dependency: its key only
select pgflow_tests.start_and_complete_task(:'run_id', 'root_a', 0, '{"a": 1}');
select is(
  pgflow._dependency_outputs(:'run_id', 'two_roots', 'last'),
  '{"root_a": {"a": 1}}'::jsonb,
  'a started dependency is absent, a completed one is keyed by its slug'
);

-- TEST: both, with outputs stored exactly (falsy values stay)
select pgflow_tests.start_and_complete_task(:'run_id', 'root_b', 0, '0');
select is(
  pgflow._dependency_outputs(:'run_id', 'two_roots', 'last'),
  '{"root_a": {"a": 1}, "root_b": 0}'::jsonb,
  'one key per completed dependency'
);

-- TEST: a root step has no dependencies
select is(pgflow._dependency_outputs(:'run_id', 'two_roots', 'root_a'), '{}'::jsonb, '{} for a root step');

select * from finish();
rollback;
