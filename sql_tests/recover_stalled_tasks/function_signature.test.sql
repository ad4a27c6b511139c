begin;
select plan(3);

-- TEST: recover_stalled_tasks(), the deprecated alias of requeue_stalled_tasks() shipped in
-- 0.1.0, keeps its signature: no arguments, returns int
select has_function('pgflow', 'recover_stalled_tasks', array[]::text[],
                    'pgflow.recover_stalled_tasks() exists');
select function_returns('pgflow', 'recover_stalled_tasks', array[]::text[], 'integer',
                        'recover_stalled_tasks() returns integer');

-- TEST: on an empty database it returns 0 (not NULL)
select pgflow_tests.reset_db();
select is(pgflow.recover_stalled_tasks(), 0, 'returns 0 when there is nothing to do');

select * from finish();
rollback;
