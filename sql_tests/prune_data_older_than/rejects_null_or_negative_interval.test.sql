begin;
select plan(4);

-- SETUP: one finished run, so that a wrong cutoff would delete something.
select pgflow_tests.reset_db();
select pgflow.create_flow('one');
select pgflow.add_step('one', 'only');
select pgflow.start_flow('one', '{}'::jsonb);
select pgflow_tests.poll_and_complete('one');

-- TEST: a NULL or negative retention is refused instead of pruning everything or nothing
select throws_ok($$select pgflow.prune_data_older_than(null)$$, '22023', null,
                 'NULL retention_interval raises invalid_parameter_value');
select throws_ok($$select pgflow.prune_data_older_than(interval '-1 day')$$, '22023', null,
                 'negative retention_interval raises invalid_parameter_value');
select is(count(*)::int, 1, 'the finished run is still there') from pgflow.runs;

-- TEST: a zero interval prunes everything finished before now
update pgflow.runs set started_at = started_at - interval '1 minute', completed_at = completed_at - interval '1 second';
select pgflow.prune_data_older_than(interval '0 seconds');
select is(count(*)::int, 0, 'interval 0 prunes a run finished a second ago') from pgflow.runs;

select * from finish();
rollback;
