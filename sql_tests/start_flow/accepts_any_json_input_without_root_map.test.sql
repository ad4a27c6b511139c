begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');

-- TEST: flows without root maps take any JSON value as input
select lives_ok(
  $$select * from pgflow.start_flow('sequential', '"just a string"'::jsonb)$$,
  'a string input is accepted when the flow has no root map'
);
select lives_ok(
  $$select * from pgflow.start_flow('sequential', '[1, 2]'::jsonb)$$,
  'an array input is accepted when the flow has no root map'
);
select is(
  (select array_agg(input order by input::text) from pgflow.runs),
  array['"just a string"'::jsonb, '[1, 2]'::jsonb],
  'both inputs are stored as given'
);

select * from finish();
rollback;
