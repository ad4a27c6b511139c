begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: upper-case letters are valid in flow slugs
select lives_ok($$ select pgflow.create_flow('CamelFlow') $$, 'a mixed-case flow slug is accepted');
select is((select flow_slug from pgflow.flows), 'CamelFlow', 'the slug is stored with its case');
select ok(pgflow_tests.queue_exists('CamelFlow'), 'the queue is named exactly like the flow');

select * from finish();
rollback;
