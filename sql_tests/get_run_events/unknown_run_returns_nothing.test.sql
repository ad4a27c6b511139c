begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: one run with events
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select ok((select count(*) from pgflow.run_events where run_id = :'run') > 0, 'precondition: the run has events');

-- TEST: an unknown run id and NULL return no row (no error)
select is_empty($$select * from pgflow.get_run_events(gen_random_uuid())$$, 'unknown run: empty');
select is_empty($$select * from pgflow.get_run_events(null)$$, 'NULL run: empty');

select * from finish();
rollback;
