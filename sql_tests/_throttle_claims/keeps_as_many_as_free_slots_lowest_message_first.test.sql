begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: limited (max_in_flight 2, root map over 4) and free (root map, no limit) in one
-- flow; nothing started yet
select pgflow.create_flow('tc');
select pgflow.add_step('tc', 'free', step_type => 'map');
select pgflow.add_step('tc', 'limited', step_type => 'map', max_in_flight => 2);
select run_id from pgflow.start_flow('tc', '[0, 1, 2, 3]'::jsonb) \gset
select array_agg(message_id order by task_index) as lim from pgflow.step_tasks where step_slug = 'limited' \gset
select array_agg(message_id order by task_index) as fre from pgflow.step_tasks where step_slug = 'free' \gset

-- TEST: given in any order, the two lowest limited ids and every free id are kept, in the
-- order given
select is(
  pgflow._throttle_claims('tc', array[(:'lim'::bigint[])[4], (:'fre'::bigint[])[2], (:'lim'::bigint[])[2],
                                      (:'lim'::bigint[])[1], (:'fre'::bigint[])[1], (:'lim'::bigint[])[3]]),
  array[(:'fre'::bigint[])[2], (:'lim'::bigint[])[2], (:'lim'::bigint[])[1], (:'fre'::bigint[])[1]],
  'keeps limited tasks 0 and 1 and both free ids, in the given order');

-- TEST: the other two limited ids are held: rows, vt 300 s ahead, tasks untouched
select results_eq($$select message_id, task_status, attempts_count from pgflow_tests.held_messages('tc', 'limited')$$,
  format($$values (%s::bigint, 'queued'::text, 0), (%s, 'queued', 0)$$, (:'lim'::bigint[])[3], (:'lim'::bigint[])[4]),
  'tasks 2 and 3 are held, queued, no attempt');
select ok((select bool_and(vt_seconds between 299 and 301) from pgflow_tests.held_messages('tc', 'limited')),
  'their vt is 300 s ahead');
select is(pgflow_tests.held_count('tc', 'free'), 0::bigint, 'nothing of the free step is held');
select is(pgflow_tests.task_statuses('tc', 'limited'), '{"queued": 4}'::jsonb, '_throttle_claims starts nothing');

-- TEST: started tasks count against the limit: with two started, every limited id is held
update pgflow.step_tasks set status = 'started', started_at = now(), attempts_count = 1
where step_slug = 'limited' and task_index in (0, 1);
select is(pgflow._throttle_claims('tc', array[(:'lim'::bigint[])[3], (:'fre'::bigint[])[3]]),
  array[(:'fre'::bigint[])[3]], 'with both slots taken only the free id is kept');

-- TEST: ids of tasks that are not queued (started here) pass through, unheld and uncounted
select is(pgflow._throttle_claims('tc', array[(:'lim'::bigint[])[1]]), array[(:'lim'::bigint[])[1]],
  'the id of a started task is returned as is (start_tasks ignores it)');

-- TEST: holding a held message again keeps its one row (and its throttled_at)
update pgflow.throttled_messages set throttled_at = now() - interval '1 minute';
select pgflow._throttle_claims('tc', array[(:'lim'::bigint[])[3], (:'lim'::bigint[])[4]]);
select results_eq($$select count(*), min(throttled_at) from pgflow.throttled_messages$$,
  $$values (2::bigint, now() - interval '1 minute')$$, 'still two rows, first throttled_at kept');

-- TEST: empty input returns empty
select is(pgflow._throttle_claims('tc', '{}'), '{}'::bigint[], 'no id in, no id out');

select * from finish();
rollback;
