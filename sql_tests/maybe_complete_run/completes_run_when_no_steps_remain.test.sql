begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a run whose steps are all done but which was not finalised
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
update pgflow.step_states
set status = 'completed', remaining_tasks = 0, completed_at = now(),
    output = to_jsonb(step_slug), remaining_deps = 0
where run_id = :'run_id';
update pgflow.runs set remaining_steps = 0 where run_id = :'run_id';

-- TEST: the run is completed with the leaf outputs
select pgflow.maybe_complete_run(:'run_id');
select results_eq(
  format($$select status, completed_at is not null, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, true, '{"last": "last"}'::jsonb)$$,
  'status completed, completed_at set, output = {leaf_slug: leaf output}'
);
select is(
  (select failed_at from pgflow.runs where run_id = :'run_id'),
  null,
  'failed_at stays NULL'
);

select * from finish();
rollback;
