begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('typed');
select pgflow.add_step('typed', 'items', step_type => 'map', when_exhausted => 'skip-cascade');
select pgflow.add_step('typed', 'total', array['items'], when_unmet => 'fail', when_exhausted => 'skip',
  required_input_pattern => '{"items": []}');

-- TEST: stepType, whenUnmet and whenExhausted come from the step rows
select is(pgflow._get_flow_shape('typed') #> '{steps,0,stepType}', '"map"'::jsonb,
  'a map step has stepType map');
select is(pgflow._get_flow_shape('typed') #> '{steps,0,whenExhausted}', '"skip-cascade"'::jsonb,
  'whenExhausted skip-cascade is reported');
select is(
  (select jsonb_build_object('u', s -> 'whenUnmet', 'e', s -> 'whenExhausted')
   from (select pgflow._get_flow_shape('typed') #> '{steps,1}' as s) as x),
  '{"u": "fail", "e": "skip"}'::jsonb,
  'whenUnmet fail and whenExhausted skip are reported');

select * from finish();
rollback;
