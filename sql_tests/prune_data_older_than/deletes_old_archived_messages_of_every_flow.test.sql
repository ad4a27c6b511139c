begin;
select plan(5);

-- SETUP: two flows, each with one completed run; their archived messages are aged so that
-- each archive has one old and one recent message. The runs themselves are recent.
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_one');
select pgflow.add_step('flow_one', 'only');
select pgflow.create_flow('flow_two');
select pgflow.add_step('flow_two', 'only');
select pgflow.start_flow('flow_one', '{}'::jsonb) from generate_series(1, 2);
select pgflow.start_flow('flow_two', '{}'::jsonb) from generate_series(1, 2);
select pgflow_tests.poll_and_complete('flow_one');
select pgflow_tests.poll_and_complete('flow_one');
select pgflow_tests.poll_and_complete('flow_two');
select pgflow_tests.poll_and_complete('flow_two');
select is(pgflow_tests.queue_count('flow_one', 'a') + pgflow_tests.queue_count('flow_two', 'a'), 4::bigint,
          'precondition: four archived messages');
update pgmq.a_flow_one set archived_at = now() - interval '10 days'
where msg_id = (select min(msg_id) from pgmq.a_flow_one);
update pgmq.a_flow_two set archived_at = now() - interval '10 days'
where msg_id = (select min(msg_id) from pgmq.a_flow_two);

-- TEST: old archived messages are deleted in every flow archive, recent ones kept
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$, 'prune runs');
select is(pgflow_tests.queue_count('flow_one', 'a'), 1::bigint, 'flow_one archive keeps only the recent message');
select is(pgflow_tests.queue_count('flow_two', 'a'), 1::bigint, 'flow_two archive keeps only the recent message');
select is(count(*)::int, 4, 'recent completed runs kept (only archived messages were old)') from pgflow.runs where status = 'completed';

select * from finish();
rollback;
