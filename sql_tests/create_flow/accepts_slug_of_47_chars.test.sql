begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: 47 characters is the longest pgmq queue name, so the longest flow slug
select lives_ok(format($$ select pgflow.create_flow(%L) $$, repeat('f', 47)),
  'a 47-character flow slug is accepted');
select is((select count(*)::int from pgflow.flows where flow_slug = repeat('f', 47)), 1,
  'the flow row is inserted');
select ok(pgflow_tests.queue_exists(repeat('f', 47)), 'its 47-character queue is created');

select * from finish();
rollback;
