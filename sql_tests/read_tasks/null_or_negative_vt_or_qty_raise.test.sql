begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select pgflow.start_flow('sequential', '{}');

-- TEST: vt and qty must be given and non-negative
select throws_ok($$ select * from pgflow.read_tasks('sequential', null, 1) $$, '22023', null, 'NULL vt');
select throws_ok($$ select * from pgflow.read_tasks('sequential', -1, 1) $$, '22023', null, 'negative vt');
select throws_ok($$ select * from pgflow.read_tasks('sequential', 30, null) $$, '22023', null, 'NULL qty');
select throws_ok($$ select * from pgflow.read_tasks('sequential', 30, -1) $$, '22023', null, 'negative qty');
select is(pgflow_tests.visible_count('sequential'), 1::bigint, 'no message was read');

select * from finish();
rollback;
