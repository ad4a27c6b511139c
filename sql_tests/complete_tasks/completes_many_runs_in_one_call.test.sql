begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: three runs of a one-step flow, every task started
select pgflow.create_flow('one_step', max_attempts => 1);
select pgflow.add_step('one_step', 'only');
select array_agg(run_id order by run_id) as runs from (
  select (pgflow.start_flow('one_step', jsonb_build_object('n', i))).run_id from generate_series(1, 3) as i
) as s \gset
select count(*) from pgflow_tests.read_and_start('one_step', 30, 10);

-- TEST: one call completes every task, step and run, in array order
select results_eq(
  format($$select run_id, step_slug, task_index, status from pgflow.complete_tasks(
      %L::uuid[], array['only', 'only', 'only'], array[0, 0, 0], array['1', '2', '3']::jsonb[])$$,
    :'runs'),
  format($$select r, 'only'::text, 0, 'completed'::text
           from unnest(%L::uuid[]) with ordinality as u (r, o) order by o$$, :'runs'),
  'one row per item, in array order, status completed'
);
select results_eq(
  format($$select output from pgflow.step_tasks where run_id = any(%L::uuid[]) order by run_id$$, :'runs'),
  $$values ('1'::jsonb), ('2'::jsonb), ('3'::jsonb)$$,
  'each task stores its own output'
);
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states
           where run_id = any(%L::uuid[]) order by run_id$$, :'runs'),
  $$values ('completed'::text, 0, '1'::jsonb), ('completed', 0, '2'::jsonb), ('completed', 0, '3'::jsonb)$$,
  'each step completes with its task output'
);
select results_eq(
  format($$select status, remaining_steps, output, completed_at is not null from pgflow.runs
           where run_id = any(%L::uuid[]) order by run_id$$, :'runs'),
  $$values ('completed'::text, 0, '{"only": 1}'::jsonb, true), ('completed', 0, '{"only": 2}'::jsonb, true),
           ('completed', 0, '{"only": 3}'::jsonb, true)$$,
  'each run completes with its leaf output'
);
select is(pgflow_tests.queue_count('one_step', 'q'), 0::bigint, 'no message is left in the queue');
select is(pgflow_tests.queue_count('one_step', 'a'), 3::bigint, 'the three messages are archived');

select * from finish();
rollback;
