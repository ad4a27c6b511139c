begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow approval: submit -> approved (timeout 30, max_attempts 2)
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'submit');
select pgflow.add_step('approval', 'approved', array['submit'], max_attempts => 2, timeout => 30);
select pgflow_tests.row_counts() as before \gset

-- TEST: it returns the steps row of the step, every column as stored
select is(
  to_jsonb(pgflow._lock_step_definition('add_wait', 'approval', 'approved')),
  (select to_jsonb(s) from pgflow.steps as s where s.flow_slug = 'approval' and s.step_slug = 'approved'),
  'the whole steps row of approval/approved'
);
select results_eq(
  $$select flow_slug, step_slug, step_type, step_index, deps_count, opt_max_attempts, opt_timeout
    from pgflow._lock_step_definition('add_timer', 'approval', 'submit')$$,
  $$values ('approval'::text, 'submit'::text, 'single'::text, 0, 0, null::int, null::int)$$,
  'a root step: approval/submit, single, index 0, no dependency'
);

-- TEST: it writes nothing (no wait is stored)
select is(pgflow_tests.row_counts() || jsonb_build_object('step_waits', (select count(*) from pgflow.step_waits)),
  :'before'::jsonb || '{"step_waits": 0}'::jsonb, 'no row was written');

select * from finish();
rollback;
