begin;
select plan(3);

-- TEST: installed as part of the extension, with the documented signature
select has_function('pgflow', 'prune_data_older_than', array['interval'],
                    'pgflow.prune_data_older_than(interval) exists');
select function_returns('pgflow', 'prune_data_older_than', array['interval'], 'void',
                        'prune_data_older_than(interval) returns void');

-- TEST: on an empty database it runs without error
select pgflow_tests.reset_db();
select lives_ok($$select pgflow.prune_data_older_than(interval '7 days')$$,
                'runs on an empty database');

select * from finish();
rollback;
