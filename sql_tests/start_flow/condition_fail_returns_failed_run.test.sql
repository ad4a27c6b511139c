begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a root step that requires {"go": true} and fails the run otherwise
select pgflow.create_flow('guarded');
select pgflow.add_step('guarded', 'gate', required_input_pattern => '{"go": true}', when_unmet => 'fail');
select pgflow.add_step('guarded', 'after', array['gate']);
create temp table returned as select * from pgflow.start_flow('guarded', '{"go": false}'::jsonb);

-- TEST: start_flow returns the failed run
select is((select status from returned), 'failed', 'start_flow returns the run already failed');
select isnt((select failed_at from returned), null, 'the returned run has failed_at');

-- TEST: nothing was started
select is((select count(*)::int from pgflow.step_tasks), 0, 'no task is created');
select is(pgflow_tests.queue_count('guarded'), 0::bigint, 'no message is sent');

select * from finish();
rollback;
