begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root steps a (single), m (map over the input) and b (single, start_delay 60), and a
-- dependent step c; a run of it with steps a, m, b created started by hand (as start_flow's
-- fast path leaves them) and no task yet
select pgflow.create_flow('roots');
select pgflow.add_step('roots', 'a');
select pgflow.add_step('roots', 'm', step_type => 'map');
select pgflow.add_step('roots', 'b', start_delay => 60);
select pgflow.add_step('roots', 'c', array['a']);
insert into pgflow.runs (run_id, flow_slug, input, remaining_steps)
values ('00000000-0000-0000-0000-0000000000a1', 'roots', '[1, 2, 3]', 4);
insert into pgflow.step_states (flow_slug, run_id, step_slug, status, started_at, initial_tasks, remaining_tasks, remaining_deps)
values ('roots', '00000000-0000-0000-0000-0000000000a1', 'a', 'started', now(), 1, 1, 0),
       ('roots', '00000000-0000-0000-0000-0000000000a1', 'm', 'started', now(), 3, 3, 0),
       ('roots', '00000000-0000-0000-0000-0000000000a1', 'b', 'started', now(), 1, 1, 0),
       ('roots', '00000000-0000-0000-0000-0000000000a1', 'c', 'created', null, 1, null, 1);

-- TEST: one task per single root step and root_tasks per root map step, none for c
select pgflow._queue_root_tasks('roots', '00000000-0000-0000-0000-0000000000a1', 3);
select results_eq(
  $$select step_slug, count(*)::int, bool_and(status = 'queued' and message_id is not null)
    from pgflow.step_tasks group by step_slug order by step_slug$$,
  $$values ('a'::text, 1, true), ('b', 1, true), ('m', 3, true)$$,
  'a: 1 task, m: 3 tasks, b: 1 task, each queued with a message; c: none'
);
select is(pgflow_tests.queue_count('roots'), 5::bigint, 'five messages are in the flow queue');

-- TEST: the messages of steps without delay are visible now; b's only after its delay
select is(pgflow_tests.visible_count('roots'), 4::bigint, 'the four messages of a and m are visible at once');
select cmp_ok(
  pgflow_tests.message_vt_seconds('roots', pgflow_tests.task_msg_id('00000000-0000-0000-0000-0000000000a1', 'b')),
  '>', 58::numeric,
  'b''s message is hidden for its start delay'
);

select * from finish();
rollback;
