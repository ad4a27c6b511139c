begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: three roots: "bad" fails, "waiting" is queued, "busy" is started
select pgflow.create_flow('archive_all', max_attempts => 1);
select pgflow.add_step('archive_all', 'bad');
select pgflow.add_step('archive_all', 'waiting');
select pgflow.add_step('archive_all', 'busy');
select run_id from pgflow.start_flow('archive_all', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'busy');
select pgflow_tests.start_and_fail_task(:'run_id', 'bad');

-- TEST: every message of the run is archived
select is(pgflow_tests.queue_count('archive_all'), 0::bigint, 'no message of the run is left in the queue');
select is(pgflow_tests.queue_count('archive_all', 'a'), 3::bigint, 'all three messages are archived');
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');

select * from finish();
rollback;
