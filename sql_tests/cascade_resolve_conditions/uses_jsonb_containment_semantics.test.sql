begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: patterns with nested objects and arrays
select pgflow.create_flow('nested');
select pgflow.add_step('nested', 'vip',
  required_input_pattern => '{"user": {"tier": "gold"}, "tags": ["vip"]}');
select run_id as r_match from pgflow.start_flow('nested',
  '{"user": {"tier": "gold", "id": 7}, "tags": ["new", "vip"], "extra": 1}'::jsonb) \gset
select run_id as r_wrong_nested from pgflow.start_flow('nested',
  '{"user": {"tier": "silver"}, "tags": ["vip"]}'::jsonb) \gset
select run_id as r_missing_tag from pgflow.start_flow('nested',
  '{"user": {"tier": "gold"}, "tags": ["new"]}'::jsonb) \gset
select run_id as r_type_mismatch from pgflow.start_flow('nested',
  '{"user": {"tier": "gold"}, "tags": "vip"}'::jsonb) \gset
select run_id as r_empty from pgflow.start_flow('nested', '{}'::jsonb) \gset

-- TEST: @> semantics: nested objects are matched partially, arrays by inclusion
select is((select status from pgflow.step_states where run_id = :'r_match'), 'started',
  'a superset with nested extra keys and extra array elements matches');
select is((select status from pgflow.step_states where run_id = :'r_wrong_nested'), 'skipped',
  'a different nested value does not match');
select is((select status from pgflow.step_states where run_id = :'r_missing_tag'), 'skipped',
  'an array lacking the required element does not match');
select is((select status from pgflow.step_states where run_id = :'r_type_mismatch'), 'skipped',
  'a scalar where the pattern has an array does not match');
select is((select status from pgflow.step_states where run_id = :'r_empty'), 'skipped',
  'an empty input does not match a non-empty pattern');

select * from finish();
rollback;
