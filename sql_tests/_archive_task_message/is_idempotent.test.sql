begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._archive_task_message(:'run_id', 'first', 0);

-- TEST: a second call is harmless
select lives_ok(
  format($$select pgflow._archive_task_message(%L, 'first', 0)$$, :'run_id'),
  'archiving an already archived message does not raise'
);
select is(pgflow_tests.queue_count('sequential', 'a'), 1::bigint, 'the message is archived once');

select * from finish();
rollback;
