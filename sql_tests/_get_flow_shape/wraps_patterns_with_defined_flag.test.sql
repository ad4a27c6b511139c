begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('conditional');
select pgflow.add_step('conditional', 'guarded',
  required_input_pattern => '{"plan": "pro", "tags": ["a"]}',
  forbidden_input_pattern => '{"test": true}');
select pgflow.add_step('conditional', 'plain');

-- TEST: a set pattern is {"defined": true, "value": <pattern>}
select is(pgflow._get_flow_shape('conditional') #> '{steps,0,requiredInputPattern}',
  '{"defined": true, "value": {"plan": "pro", "tags": ["a"]}}'::jsonb,
  'requiredInputPattern carries defined true and the pattern value');
select is(pgflow._get_flow_shape('conditional') #> '{steps,0,forbiddenInputPattern}',
  '{"defined": true, "value": {"test": true}}'::jsonb,
  'forbiddenInputPattern carries defined true and the pattern value');

-- TEST: an unset pattern is {"defined": false} (no value key)
select is(pgflow._get_flow_shape('conditional') #> '{steps,1,requiredInputPattern}',
  '{"defined": false}'::jsonb,
  'an unset pattern is {"defined": false}');

select * from finish();
rollback;
