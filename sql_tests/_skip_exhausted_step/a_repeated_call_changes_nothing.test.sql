begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: flow fs: bad (when_exhausted skip) -> after, and other beside them; bad's task is
-- started and _skip_exhausted_step is called for it twice (the second one late)
select pgflow.create_flow('fs', max_attempts => 1);
select pgflow.add_step('fs', 'bad', when_exhausted => 'skip');
select pgflow.add_step('fs', 'after', array['bad']);
select pgflow.add_step('fs', 'other');
select run_id from pgflow.start_flow('fs', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'bad');
select pgflow._skip_exhausted_step(:'run_id', 'bad', 'skip', 'handler_failed', 'boom');
select pgflow._skip_exhausted_step(:'run_id', 'bad', 'skip', 'handler_failed', 'boom');

-- TEST: the step was skipped once, its dependent released once
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'created'::text, 0), ('bad', 'skipped', 0), ('other', 'started', 0)$$,
  'bad skipped, after released (0 pending dependencies, no error), other untouched');
select results_eq(
  format($$select remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values (2)$$,
  'remaining_steps dropped once (3 -> 2)');

-- SETUP: the same with skip-cascade on a flow fc (bad -> after, other beside)
select pgflow.create_flow('fc', max_attempts => 1);
select pgflow.add_step('fc', 'bad', when_exhausted => 'skip-cascade');
select pgflow.add_step('fc', 'after', array['bad']);
select pgflow.add_step('fc', 'other');
select run_id as run2 from pgflow.start_flow('fc', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run2', 'bad');
select pgflow._skip_exhausted_step(:'run2', 'bad', 'skip-cascade', 'handler_failed', 'boom');
select pgflow._skip_exhausted_step(:'run2', 'bad', 'skip-cascade', 'handler_failed', 'boom');

-- TEST: bad and its subtree skipped once; other still counted
select results_eq(
  format($$select remaining_steps, status from pgflow.runs where run_id = %L$$, :'run2'),
  $$values (1, 'started'::text)$$,
  'remaining_steps dropped once per skipped step (3 -> 1): other is still counted');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run2'),
  $$values ('after'::text, 'skipped'::text), ('bad', 'skipped'), ('other', 'started')$$,
  'bad and after skipped, other started');

select * from finish();
rollback;
