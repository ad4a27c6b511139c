begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: only -> after; "only" has when_exhausted skip-cascade
select pgflow.create_flow('all_skipped', max_attempts => 1);
select pgflow.add_step('all_skipped', 'only', when_exhausted => 'skip-cascade');
select pgflow.add_step('all_skipped', 'after', array['only']);
select run_id from pgflow.start_flow('all_skipped', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'only');

-- TEST: everything skipped -> run completed inside fail_task with NULL output
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, null::jsonb)$$,
  'the run completes with remaining_steps 0 and a NULL output (no completed leaf)'
);

select * from finish();
rollback;
