begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a flow queue; three tasks sent in one call (no step_tasks rows needed)
select pgflow.create_flow('plain');
create temp table sent as
select m.msg_id, m.ord
from pgflow._send_task_messages(
  'plain',
  array['00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-0000000000a1',
        '00000000-0000-0000-0000-0000000000b2']::uuid[],
  array['fan', 'fan', 'solo'],
  array[1, 0, 0],
  0
) with ordinality as m (msg_id, ord);

-- TEST: one id per task, increasing in array order
select is((select count(*)::int from sent), 3, 'three message ids are returned');
select ok(
  (select bool_and(a.msg_id < b.msg_id) from sent as a join sent as b on b.ord = a.ord + 1),
  'the ids come back in array order'
);

-- TEST: each message points at its task
select results_eq(
  $$select q.message from sent join pgmq.q_plain as q on q.msg_id = sent.msg_id order by sent.ord$$,
  $$values ('{"flow_slug": "plain", "run_id": "00000000-0000-0000-0000-0000000000a1", "step_slug": "fan", "task_index": 1}'::jsonb),
           ('{"flow_slug": "plain", "run_id": "00000000-0000-0000-0000-0000000000a1", "step_slug": "fan", "task_index": 0}'::jsonb),
           ('{"flow_slug": "plain", "run_id": "00000000-0000-0000-0000-0000000000b2", "step_slug": "solo", "task_index": 0}'::jsonb)$$,
  'message i is {flow_slug, run_id[i], step_slug[i], task_index[i]}'
);

-- TEST: only messages are written
select is((select count(*)::int from pgflow.step_tasks), 0, 'no step_tasks row is created');

select * from finish();
rollback;
