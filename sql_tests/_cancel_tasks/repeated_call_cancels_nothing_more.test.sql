begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: root_map over three items: task 0 started, 1 and 2 queued; the tasks cancelled once
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'items', 0);
select pgflow._cancel_tasks(array[:'run']::uuid[], array['items']);
select pgflow_tests.queue_count('root_map', 'a') as archived \gset
create temp table tasks_before as select * from pgflow.step_tasks;
select max(id) as last_id from pgflow.run_events \gset
select is(:archived::bigint, 3::bigint, 'precondition: the first call archived the three messages');

-- TEST: a second call changes no task, archives nothing more, records nothing
select lives_ok(format($$select pgflow._cancel_tasks(array[%L]::uuid[], array['items'])$$, :'run'), 'second call');
select set_eq('select * from pgflow.step_tasks', 'select * from tasks_before', 'the task rows are unchanged');
select is(pgflow_tests.queue_count('root_map', 'a'), :archived::bigint, 'the archive is unchanged (3 messages)');
select is((select count(*)::int from pgflow.run_events where id > :last_id), 0, 'nothing recorded');

select * from finish();
rollback;
