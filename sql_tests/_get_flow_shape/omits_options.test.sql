begin;
select plan(3);

-- SETUP: flow and step options set
select pgflow_tests.reset_db();
select pgflow.create_flow('with_options', max_attempts => 5, base_delay => 2, timeout => 30);
select pgflow.add_step('with_options', 'slow', max_attempts => 1, base_delay => 1, timeout => 99, start_delay => 5);

-- TEST: options are not part of the DB shape (they are not compared either)
select ok(not pgflow._get_flow_shape('with_options') ? 'options', 'the shape has no flow-level options key');
select ok(not (pgflow._get_flow_shape('with_options') #> '{steps,0}') ? 'options', 'the step has no options key');
select is(
  (select array_agg(k order by k) from jsonb_object_keys(pgflow._get_flow_shape('with_options') #> '{steps,0}') as k),
  array['dependencies', 'forbiddenInputPattern', 'requiredInputPattern', 'slug', 'stepType', 'whenExhausted', 'whenUnmet'],
  'a step shape has exactly slug, stepType, dependencies, whenUnmet, whenExhausted and both patterns');

select * from finish();
rollback;
