begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root map with two tasks (3 attempts): task 0 started, task 1 queued; a second
-- run whose started task's step was skipped meanwhile
select pgflow.create_flow('late', max_attempts => 3);
select pgflow.add_step('late', 'items', step_type => 'map');
select run_id from pgflow.start_flow('late', '[1, 2]'::jsonb) \gset
select run_id as r_skipped from pgflow.start_flow('late', '[1]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
select count(*) from pgflow_tests.start_task(:'r_skipped', 'items', 0);
select pgflow_tests.mark_step_skipped(:'r_skipped', 'items');
create temp table before_tasks as select * from pgflow.step_tasks where run_id = :'run_id';

-- TEST: each late report is ignored with its reason
select results_eq(
  format($$select f.outcome, f.reason from (values
      (1, %1$L::uuid, 'items', 0, 9), (2, '00000000-0000-0000-0000-000000000000'::uuid, 'items', 0, null),
      (3, %1$L::uuid, 'items', 1, null), (4, %2$L::uuid, 'items', 0, null)) as v (n, r, s, i, a),
    lateral pgflow._fail_task(v.r, v.s, v.i, 'late', v.a) as f order by v.n$$, :'run_id', :'r_skipped'),
  $$values ('ignored'::text, 'unknown_attempt'::text), ('ignored', 'unknown_task'),
           ('ignored', 'task_not_started'), ('ignored', 'step_not_started')$$,
  'unknown_attempt (attempt 9 never happened), unknown_task, task_not_started, step_not_started'
);

-- TEST: nothing was written for the started run
select results_eq(
  format('select * from pgflow.step_tasks where run_id = %L order by task_index', :'run_id'),
  'select * from before_tasks order by task_index',
  'the tasks of the started run are unchanged'
);

-- TEST: a step no longer started: only its message is archived
select results_eq(
  format($$select status, error_message, pgflow_tests.message_exists(flow_slug, message_id, 'a')
           from pgflow.step_tasks where run_id = %L$$, :'r_skipped'),
  $$values ('started'::text, null::text, true)$$,
  'the task row is unchanged and its message archived'
);
select is(pgflow_tests.queue_count('late'), 2::bigint, 'the started run''s two messages stay queued');

select * from finish();
rollback;
