begin;
select plan(2);

-- SETUP: flow and step limit options set
select pgflow_tests.reset_db();
select pgflow.create_flow('limited', concurrency_limit => 2, on_limit => 'reject', run_timeout => 60);
select pgflow.add_step('limited', 'fetch', max_in_flight => 3);

-- TEST: the shape is upstream's: no options key at either level
select ok(not pgflow._get_flow_shape('limited') ? 'options', 'the shape has no flow-level options key');
select is(
  (select array_agg(k order by k) from jsonb_object_keys(pgflow._get_flow_shape('limited') #> '{steps,0}') as k),
  array['dependencies', 'forbiddenInputPattern', 'requiredInputPattern', 'slug', 'stepType', 'whenExhausted', 'whenUnmet'],
  'a step with max_in_flight has exactly upstream''s keys');

select * from finish();
rollback;
