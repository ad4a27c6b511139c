begin;
select plan(11);

-- An array step returns 100,000 elements; the dependent map spawns all its
-- tasks and messages inside the one complete_task call. No timing assertions: the test
-- only has to finish.
-- SETUP: map_chain flow (producer -> mapper -> reducer).
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('map_chain');
select run_id as run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST: one complete_task call spawns 100,000 tasks and messages
select lives_ok(
  format($$select pgflow.complete_task(%L, 'producer', 0,
           (select jsonb_agg(i) from generate_series(1, 100000) as i))$$, :'run_id'),
  'complete_task with a 100,000-element array finishes');
select is(initial_tasks || '/' || remaining_tasks || '/' || status, '100000/100000/started',
          'mapper started with 100,000 tasks')
from pgflow.step_states where run_id = :'run_id' and step_slug = 'mapper';
select is(count(*)::int, 100000, '100,000 step_tasks rows')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'mapper';
select is(count(distinct task_index)::int || '/' || min(task_index) || '/' || max(task_index), '100000/0/99999',
          'task indices 0..99999, no duplicates')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'mapper';
select is(count(distinct message_id)::int, 100000, 'each task has its own message')
from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'mapper';
select is(pgflow_tests.queue_count('map_chain', 'q'), 100000::bigint, '100,000 messages in the queue');
select is(count(*)::int, 0, 'every message points at its own task (ids paired by task_index)')
from pgflow.step_tasks t
join pgmq.q_map_chain q on q.msg_id = t.message_id
where t.run_id = :'run_id' and t.step_slug = 'mapper'
  and ((q.message->>'task_index')::int <> t.task_index or q.message->>'step_slug' <> 'mapper'
       or (q.message->>'run_id')::uuid <> t.run_id);

-- TEST: start_tasks hands out the right elements for a batch of messages
select is(count(*)::int, 0, 'start_tasks gives each task element task_index + 1')
from pgflow_tests.read_and_start('map_chain', 30, 1000) as r
where r.input <> to_jsonb(r.task_index + 1);

-- TEST: a root map over a 100,000-element run input spawns everything inside start_flow
select pgflow_tests.setup_flow('root_map');
select run_id as root_run from pgflow.start_flow('root_map',
  (select jsonb_agg(i) from generate_series(1, 100000) as i)) \gset
select is(count(*)::int, 100000, 'root map: 100,000 step_tasks rows')
from pgflow.step_tasks where run_id = :'root_run';
select is(pgflow_tests.queue_count('root_map', 'q'), 100000::bigint, 'root map: 100,000 messages');
select is(initial_tasks, 100000, 'root map: initial_tasks 100000')
from pgflow.step_states where run_id = :'root_run';

select * from finish();
rollback;
