begin;
select plan(5);

-- TEST: a shape is an object with a steps array
select lives_ok($$select pgflow._check_flow_shape('f', '{"steps": []}'::jsonb)$$, 'an object with a steps array passes');
select throws_ok($$select pgflow._check_flow_shape('f', null)$$, '22023',
  'Shape of flow ''f'' must be a JSON object with a "steps" array (got NULL)', 'NULL is rejected');
select throws_ok($$select pgflow._check_flow_shape('f', '[]'::jsonb)$$, '22023',
  'Shape of flow ''f'' must be a JSON object with a "steps" array (got array)', 'an array is rejected');
select throws_ok($$select pgflow._check_flow_shape('f', '{"steps": {}}'::jsonb)$$, '22023',
  'Shape of flow ''f'' must be a JSON object with a "steps" array (got object)', 'steps that are not an array are rejected');
select throws_ok($$select pgflow._check_flow_shape('f', '{}'::jsonb)$$, '22023',
  'Shape of flow ''f'' must be a JSON object with a "steps" array (got object)', 'an object without steps is rejected');

select * from finish();
rollback;
