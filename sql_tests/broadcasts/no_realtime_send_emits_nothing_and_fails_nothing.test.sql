begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: no realtime.send function exists (no stub created)
select is(
  to_regprocedure('realtime.send(jsonb,text,text,boolean)'),
  null,
  'precondition: realtime.send does not exist'
);
select pgflow_tests.setup_flow('sequential');
select pgflow.create_flow('skippy', max_attempts => 1);
select pgflow.add_step('skippy', 'cond', required_input_pattern => '{"x": 1}');
select pgflow.add_step('skippy', 'bad', when_exhausted => 'skip-cascade');
select pgflow.add_step('skippy', 'after_bad', array['bad']);

-- TEST: every transition works without broadcasts
select lives_ok(
  $$select pgflow_tests.poll_and_complete('sequential') from pgflow.start_flow('sequential', '{}'::jsonb)$$,
  'start_flow and complete_task work without realtime.send'
);
select lives_ok(
  $$select pgflow_tests.poll_and_complete('sequential'), pgflow_tests.poll_and_complete('sequential')$$,
  'the run can be completed without realtime.send'
);
select lives_ok(
  $$select pgflow_tests.poll_and_fail('skippy') from pgflow.start_flow('skippy', '{}'::jsonb)$$,
  'condition skips and skip-cascade after failure work without realtime.send'
);
select results_eq(
  $$select flow_slug, status from pgflow.runs order by flow_slug$$,
  $$values ('sequential'::text, 'completed'::text), ('skippy', 'completed')$$,
  'both runs reach their final status'
);

select * from finish();
rollback;
