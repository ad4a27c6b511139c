begin;
select plan(6);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: two flows with a queued task each (one hidden by a start delay), and a flow
-- without a queue message
select pgflow_tests.setup_flow('sequential');
select pgflow.create_flow('later', max_attempts => 1);
select pgflow.add_step('later', 'only', start_delay => 600);
select pgflow_tests.setup_flow('two_roots');
select run_id as seq_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as later_run from pgflow.start_flow('later', '{}'::jsonb) \gset
create temp table before_advance as
  select 'sequential' as flow_slug, q.msg_id, q.vt, q.enqueued_at from pgmq.q_sequential as q
  union all
  select 'later', q.msg_id, q.vt, q.enqueued_at from pgmq.q_later as q;

-- TEST: advance_clock moves every message of every flow queue back by the amount
select is((select count(*)::int from before_advance), 2, 'two messages before');
select is(pgflow_tests.visible_count('later'), 0::bigint, 'the delayed message is hidden before');
select pgflow.advance_clock(3600.25);
select results_eq(
  $$select b.msg_id, q.vt, q.enqueued_at from before_advance as b join pgmq.q_sequential as q using (msg_id)
    where b.flow_slug = 'sequential'$$,
  $$select msg_id, vt - interval '3600.25 seconds', enqueued_at - interval '3600.25 seconds'
    from before_advance where flow_slug = 'sequential'$$,
  'sequential: vt and enqueued_at moved back by 3600.25 s');
select results_eq(
  $$select b.msg_id, q.vt, q.enqueued_at from before_advance as b join pgmq.q_later as q using (msg_id)
    where b.flow_slug = 'later'$$,
  $$select msg_id, vt - interval '3600.25 seconds', enqueued_at - interval '3600.25 seconds'
    from before_advance where flow_slug = 'later'$$,
  'later: vt and enqueued_at moved back by 3600.25 s');

-- TEST: so the delayed message (due in 600 s) is visible now, and the flow without
-- messages is untouched
select is(pgflow_tests.visible_count('later'), 1::bigint, 'the delayed message is now visible');
select is(pgflow_tests.queue_count('two_roots'), 0::bigint, 'two_roots still has no message');

select * from finish();
rollback;
