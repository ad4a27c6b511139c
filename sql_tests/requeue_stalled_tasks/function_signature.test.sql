begin;
select plan(4);

-- TEST: signature as upstream: no arguments, returns int, SECURITY DEFINER
select has_function('pgflow', 'requeue_stalled_tasks', array[]::text[],
                    'pgflow.requeue_stalled_tasks() exists');
select function_returns('pgflow', 'requeue_stalled_tasks', array[]::text[], 'integer',
                        'requeue_stalled_tasks() returns integer');
select is_definer('pgflow', 'requeue_stalled_tasks', array[]::text[],
                  'requeue_stalled_tasks() is SECURITY DEFINER');

-- TEST: on an empty database it returns 0 (not NULL)
select pgflow_tests.reset_db();
select is(pgflow.requeue_stalled_tasks(), 0, 'returns 0 when there is nothing to do');

select * from finish();
rollback;
