begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"one"'::jsonb);

-- TEST: the child becomes ready and is started with a queued task
select results_eq(
  format($$select step_slug, status, remaining_deps from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'completed'::text, 0),
           ('last', 'created', 1),
           ('second', 'started', 0)$$,
  'the child''s remaining_deps drops to 0 and it is started; the grandchild waits'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'second'),
  'queued',
  'a queued task is created for the child'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  2,
  'remaining_steps is decremented by one'
);
select is(
  (select input from pgflow_tests.read_and_start('sequential')),
  '{"first": "one"}'::jsonb,
  'the child''s message is visible and its input holds the parent output'
);

select * from finish();
rollback;
