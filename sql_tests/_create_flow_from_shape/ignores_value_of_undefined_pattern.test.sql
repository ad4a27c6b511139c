begin;
select plan(1);

-- SETUP: defined false wins even when a value is present
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape',
  '{"steps": [{"slug": "a", "stepType": "single", "dependencies": [],
               "requiredInputPattern": {"defined": false, "value": {"x": 1}},
               "forbiddenInputPattern": {"defined": false}}]}');

-- TEST
select is((select required_input_pattern from pgflow.steps where step_slug = 'a'), null::jsonb,
  'a pattern with defined false is not stored even if it carries a value');

select * from finish();
rollback;
