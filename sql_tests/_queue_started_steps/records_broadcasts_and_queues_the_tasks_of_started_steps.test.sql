begin;
select plan(9);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first -> fast, first -> slow (start_delay 30), first -> items (map); two runs whose
-- "first" is finished by hand with an array of 3 elements (items gets 3 tasks). Then fast,
-- slow and items are set started as a caller's UPDATE does, and nothing else is done.
select pgflow.create_flow('fan');
select pgflow.add_step('fan', 'first');
select pgflow.add_step('fan', 'fast', array['first']);
select pgflow.add_step('fan', 'slow', array['first'], start_delay => 30);
select pgflow.add_step('fan', 'items', array['first'], step_type => 'map');
select run_id as r1 from pgflow.start_flow('fan', '{}'::jsonb, '00000000-0000-0000-0000-0000000000a1') \gset
select run_id as r2 from pgflow.start_flow('fan', '{}'::jsonb, '00000000-0000-0000-0000-0000000000a2') \gset
select pgflow_tests.finish_step(:'r1', 'first', '[10, 20, 30]');
select pgflow_tests.finish_step(:'r2', 'first', '[10, 20, 30]');
update pgflow.step_states set status = 'started', started_at = now(), remaining_tasks = initial_tasks
where step_slug in ('fast', 'slow', 'items');
select max(id) as mark from pgflow.run_events \gset
delete from realtime.messages;
create temp table states_before as select * from pgflow.step_states;

-- The steps are passed in no particular order (r2 first, steps mixed).
select pgflow._queue_started_steps(array[:'r2', :'r1', :'r2', :'r1', :'r2', :'r1']::uuid[],
                                   array['items', 'slow', 'fast', 'fast', 'slow', 'items']);

-- TEST: step:started recorded once per step, in the order given
select results_eq(
  format($$select run_id, step_slug, event, actor from pgflow.run_events where id > %s order by id$$, :mark),
  format($$values (%1$L::uuid, 'items'::text, 'step:started'::text, 'system'::text), (%2$L, 'slow', 'step:started', 'system'),
                  (%1$L, 'fast', 'step:started', 'system'), (%2$L, 'fast', 'step:started', 'system'),
                  (%1$L, 'slow', 'step:started', 'system'), (%2$L, 'items', 'step:started', 'system')$$, :'r2', :'r1'),
  'one step:started per step, actor system');

-- TEST: step:started broadcast per step, by run, then step_index
select is(
  (select array_agg(m.topic || ' ' || m.event order by m.id) from realtime.messages as m),
  array['pgflow:run:' || :'r1' || ' step:fast:started', 'pgflow:run:' || :'r1' || ' step:slow:started',
        'pgflow:run:' || :'r1' || ' step:items:started',
        'pgflow:run:' || :'r2' || ' step:fast:started', 'pgflow:run:' || :'r2' || ' step:slow:started',
        'pgflow:run:' || :'r2' || ' step:items:started'],
  'broadcasts: r1 fast, slow, items, then r2 fast, slow, items');
select is(
  pgflow_tests.event_payload(:'r1', 'step:items:started') - 'started_at',
  jsonb_build_object('event_type', 'step:started', 'run_id', :'r1'::uuid, 'step_slug', 'items', 'status', 'started',
                     'remaining_tasks', 3, 'remaining_deps', 0),
  'the payload of items: remaining_tasks is its task count (3)');

-- TEST: the tasks are queued: one per single step, three for the map, each with its message
select results_eq(
  $$select run_id, step_slug, count(*)::int, array_agg(task_index order by task_index), bool_and(status = 'queued')
    from pgflow.step_tasks where step_slug <> 'first' group by run_id, step_slug order by run_id, step_slug$$,
  format($$values (%1$L::uuid, 'fast'::text, 1, array[0], true), (%1$L, 'items', 3, array[0, 1, 2], true),
                  (%1$L, 'slow', 1, array[0], true),
                  (%2$L::uuid, 'fast', 1, array[0], true), (%2$L, 'items', 3, array[0, 1, 2], true),
                  (%2$L, 'slow', 1, array[0], true)$$, :'r1', :'r2'),
  'fast 1, slow 1, items 3 queued tasks in each run');
select is(
  (select count(*)::int from pgflow.step_tasks as t join pgmq.q_fan as q on q.msg_id = t.message_id
   where t.step_slug <> 'first'),
  10, 'each of the 10 tasks has its message in the queue');

-- TEST: each message waits for its step's start delay
select is(
  (select array_agg(distinct t.step_slug order by t.step_slug) from pgflow.step_tasks as t
   join pgmq.q_fan as q on q.msg_id = t.message_id
   where t.step_slug <> 'first' and q.vt > clock_timestamp() + interval '20 seconds'),
  array['slow'], 'only slow''s messages are hidden (about 30 s)');

-- TEST: one send per start delay, the no-delay group first (its first step comes first);
-- within a group, messages by run, step_index, then task_index
select results_eq(
  $$select run_id, step_slug, task_index from pgflow.step_tasks where step_slug <> 'first' order by message_id$$,
  format($$values (%1$L::uuid, 'fast'::text, 0), (%1$L, 'items', 0), (%1$L, 'items', 1), (%1$L, 'items', 2),
                  (%2$L::uuid, 'fast', 0), (%2$L, 'items', 0), (%2$L, 'items', 1), (%2$L, 'items', 2),
                  (%1$L, 'slow', 0), (%2$L, 'slow', 0)$$, :'r1', :'r2'),
  'message order: r1 fast, items 0-2, r2 fast, items 0-2, then r1 slow, r2 slow');

-- TEST: the map's tasks read the parent's elements
select is(
  (select array_agg(i.inputs order by i.run_id) from pgflow.map_task_inputs as i where i.step_slug = 'items'),
  array['[10, 20, 30]'::jsonb, '[10, 20, 30]'::jsonb], 'items'' elements are stored for both runs');

-- TEST: the step states are left as the caller set them
select is((select count(*)::int from (select * from pgflow.step_states except select * from states_before) as d), 0,
  'no step state changed');

select * from finish();
rollback;
