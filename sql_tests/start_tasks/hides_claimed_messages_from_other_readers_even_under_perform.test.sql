begin;
select plan(8);

-- start_tasks extends the message lease (vt) to timeout + 2 s in the call that returns the
-- task, so no other reader gets the message after the short read vt; a vt update in a CTE
-- that nothing references might not run, so this also holds when the caller discards the
-- returned rows (PERFORM).
-- SETUP: step timeout 30 s, map over 3 elements. Worker A reads with vt = 2.
select pgflow_tests.reset_db();
select pgflow.create_flow('leased', timeout => 60);
select pgflow.add_step('leased', 'items', step_type => 'map', timeout => 30);
select run_id as run_id from pgflow.start_flow('leased', '[1, 2, 3]'::jsonb) \gset
select pgflow_tests.ensure_worker('leased');
create temp table msgs as select msg_id from pgmq.read('leased', 2, 3);

-- TEST: before start_tasks the lease is the short read vt
select ok(max(pgflow_tests.message_vt('leased', msg_id)) < clock_timestamp() + interval '5 seconds',
          'after read with vt 2 the messages are leased for about 2 s')
from msgs;

-- TEST: a caller that only counts the returned rows still gets the lease extended
select is(count(*)::int, 3, 'start_tasks returns 3 tasks')
from pgflow.start_tasks('leased', array(select msg_id from msgs), '11111111-1111-1111-1111-111111111111'::uuid);
select ok(min(pgflow_tests.message_vt('leased', msg_id)) > clock_timestamp() + interval '29 seconds',
          'every message is now leased for more than 29 s')
from msgs;
select ok(max(pgflow_tests.message_vt('leased', msg_id)) <= clock_timestamp() + interval '33 seconds',
          'and for at most timeout + 2 s')
from msgs;

-- TEST: worker B polling the same queue gets nothing (well after A's 2 s read vt)
select is((select count(*)::int from pgmq.read('leased', 2, 10)), 0, 'worker B receives none of the started messages');
select is(pgflow_tests.visible_count('leased'), 0::bigint, 'no message of the queue is visible');

-- TEST: the same holds when start_tasks is called in a statement that discards its rows
update pgflow.step_tasks set status = 'queued', started_at = null where run_id = :'run_id';
select pgflow_tests.make_visible('leased');
do $$
begin
  perform pgflow.start_tasks('leased', array(select msg_id from pgmq.read('leased', 2, 3)),
                             '11111111-1111-1111-1111-111111111111'::uuid);
end
$$;
select is(count(*)::int, 3, 'PERFORM start_tasks started all three tasks')
from pgflow.step_tasks where run_id = :'run_id' and status = 'started';
select ok(min(pgflow_tests.message_vt('leased', msg_id)) > clock_timestamp() + interval '29 seconds',
          'PERFORM start_tasks also extended every lease')
from msgs;

select * from finish();
rollback;
