begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a single root step skipped by its condition
select pgflow.create_flow('nothing_done');
select pgflow.add_step('nothing_done', 'only', required_input_pattern => '{"go": true}');
create temp table returned as select * from pgflow.start_flow('nothing_done', '{}'::jsonb);

-- TEST: the run completes with a NULL output
select is((select status from returned), 'completed', 'the run completes inside start_flow');
select is((select output from returned), null::jsonb, 'the output is NULL when no leaf completed');

select * from finish();
rollback;
