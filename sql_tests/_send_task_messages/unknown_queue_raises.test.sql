begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: no flow, so no queue named no_such_flow

-- TEST: pgmq's error comes through
select throws_ok(
  $$select * from pgflow._send_task_messages('no_such_flow', array['00000000-0000-0000-0000-0000000000a1']::uuid[],
                                              array['x'], array[0], 0)$$,
  '42P01',
  'relation "pgmq.q_no_such_flow" does not exist',
  'an unknown queue raises undefined_table'
);

select * from finish();
rollback;
