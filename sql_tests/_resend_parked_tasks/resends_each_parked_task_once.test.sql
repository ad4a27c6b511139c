begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: root_map over four items: task 0 started; the run paused by pause_run (tasks 1, 2,
-- 3 parked), the pause lasted (their archived visibility times are past), task 3 lost its
-- message_id (never sent), then the run is marked started directly
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3, 4]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'items', 0);
select count(*) from pgflow.pause_run(:'run', 'alice', null);
update pgmq.a_root_map set vt = now() - interval '1 hour';
update pgflow.step_tasks set message_id = null where run_id = :'run' and task_index = 3;
update pgflow.runs set status = 'started', paused_at = null where run_id = :'run';
create temp table tasks_before as
  select task_index, status, message_id from pgflow.step_tasks where run_id = :'run';

-- TEST: each queued task without a message in the queue gets a new one, visible now
select pgflow._resend_parked_tasks(:'run');
select results_eq(
  $$select t.task_index, t.status, t.message_id is distinct from b.message_id,
           pgflow_tests.message_exists('root_map', t.message_id)
    from pgflow.step_tasks as t join tasks_before as b using (task_index) order by t.task_index$$,
  $$values (0, 'started'::text, false, true), (1, 'queued', true, true), (2, 'queued', true, true), (3, 'queued', true, true)$$,
  'tasks 1, 2, 3 have new messages in the queue; the started task 0 keeps its own'
);
select results_eq(
  format($$select t.task_index, q.message ->> 'run_id', q.message ->> 'step_slug', (q.message ->> 'task_index')::int,
                  q.vt <= clock_timestamp()
           from pgflow.step_tasks as t join pgmq.q_root_map as q on q.msg_id = t.message_id
           where t.task_index > 0 order by t.task_index$$),
  format($$values (1, %1$L, 'items'::text, 1, true), (2, %1$L, 'items', 2, true), (3, %1$L, 'items', 3, true)$$, :'run'),
  'each new message names its task and is visible now'
);
select is(pgflow_tests.queue_count('root_map'), 4::bigint, 'the queue holds four messages');
select is(pgflow_tests.queue_count('root_map', 'a'), 3::bigint, 'the parked messages stay in the archive');

-- TEST: a second call sends nothing more
create temp table tasks_after as
  select task_index, status, message_id from pgflow.step_tasks where run_id = :'run';
select pgflow._resend_parked_tasks(:'run');
select is(pgflow_tests.queue_count('root_map'), 4::bigint, 'still four messages in the queue');
select results_eq(
  format($$select task_index, status, message_id from pgflow.step_tasks where run_id = %L order by 1$$, :'run'),
  $$select * from tasks_after order by 1$$,
  'no task''s message_id changed'
);

-- TEST: a run none of whose messages was parked gets nothing
select run_id as fresh from pgflow.start_flow('root_map', '[1]'::jsonb) \gset
select pgflow._resend_parked_tasks(:'fresh');
select is(pgflow_tests.queue_count('root_map'), 5::bigint, 'a fresh run''s queued task is not sent twice');

select * from finish();
rollback;
