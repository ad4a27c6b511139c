begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: maybe (when_exhausted skip, max_attempts 1) and always -> last
select pgflow.create_flow('opt_deps', max_attempts => 1);
select pgflow.add_step('opt_deps', 'maybe', when_exhausted => 'skip');
select pgflow.add_step('opt_deps', 'always');
select pgflow.add_step('opt_deps', 'last', array['maybe', 'always']);
select run_id from pgflow.start_flow('opt_deps', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'maybe', 0, 'nope');
select pgflow_tests.start_and_complete_task(:'run_id', 'always', 0, '"yes"'::jsonb);

-- TEST: the skipped dependency is absent, not null
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'last')),
  '{"always": "yes"}'::jsonb,
  'a skipped dependency is absent from the input (no "maybe" key)'
);

select * from finish();
rollback;
