begin;
select plan(1);

-- SETUP: diamond; dependencies of last are given in reverse alphabetical order
select pgflow_tests.reset_db();
select pgflow.create_flow('diamond');
select pgflow.add_step('diamond', 'root');
select pgflow.add_step('diamond', 'right', array['root']);
select pgflow.add_step('diamond', 'left', array['root']);
select pgflow.add_step('diamond', 'last', array['right', 'left']);

-- TEST: steps by step_index, dependencies sorted, defaults spelled out
select is(
  pgflow._get_flow_shape('diamond'),
  '{"steps": [
     {"slug": "root", "stepType": "single", "dependencies": [],
      "whenUnmet": "skip", "whenExhausted": "fail",
      "requiredInputPattern": {"defined": false}, "forbiddenInputPattern": {"defined": false}},
     {"slug": "right", "stepType": "single", "dependencies": ["root"],
      "whenUnmet": "skip", "whenExhausted": "fail",
      "requiredInputPattern": {"defined": false}, "forbiddenInputPattern": {"defined": false}},
     {"slug": "left", "stepType": "single", "dependencies": ["root"],
      "whenUnmet": "skip", "whenExhausted": "fail",
      "requiredInputPattern": {"defined": false}, "forbiddenInputPattern": {"defined": false}},
     {"slug": "last", "stepType": "single", "dependencies": ["left", "right"],
      "whenUnmet": "skip", "whenExhausted": "fail",
      "requiredInputPattern": {"defined": false}, "forbiddenInputPattern": {"defined": false}}
   ]}'::jsonb,
  'the shape lists steps in definition order with sorted dependencies');

select * from finish();
rollback;
