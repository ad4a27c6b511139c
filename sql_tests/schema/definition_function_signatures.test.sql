begin;
select plan(14);

-- TEST: upstream's definition functions exist with the exact argument names, defaults and return type.
-- function_signature() lists every overload, so a stray overload fails the second check.
select has_function('pgflow', 'create_flow', array['text', 'integer', 'integer', 'integer', 'integer', 'text', 'integer'],
  'pgflow.create_flow(text, integer, integer, integer, integer, text, integer) exists');
select is(pgflow_tests.function_signature('create_flow'),
  'create_flow(flow_slug text, max_attempts integer DEFAULT NULL::integer, base_delay integer DEFAULT NULL::integer, timeout integer DEFAULT NULL::integer, concurrency_limit integer DEFAULT NULL::integer, on_limit text DEFAULT NULL::text, run_timeout integer DEFAULT NULL::integer) returns pgflow.flows',
  'create_flow: argument names, defaults and return type as upstream, then pgflow-py''s trailing optional concurrency_limit, on_limit, run_timeout');
select has_function('pgflow', 'add_step', array['text', 'text', 'text[]', 'integer', 'integer', 'integer', 'integer', 'text', 'jsonb', 'jsonb', 'text', 'text', 'integer'],
  'pgflow.add_step(text, text, text[], integer, integer, integer, integer, text, jsonb, jsonb, text, text, integer) exists');
select is(pgflow_tests.function_signature('add_step'),
  'add_step(flow_slug text, step_slug text, deps_slugs text[] DEFAULT ''{}''::text[], max_attempts integer DEFAULT NULL::integer, base_delay integer DEFAULT NULL::integer, timeout integer DEFAULT NULL::integer, start_delay integer DEFAULT NULL::integer, step_type text DEFAULT ''single''::text, required_input_pattern jsonb DEFAULT NULL::jsonb, forbidden_input_pattern jsonb DEFAULT NULL::jsonb, when_unmet text DEFAULT ''skip''::text, when_exhausted text DEFAULT ''fail''::text, max_in_flight integer DEFAULT NULL::integer) returns pgflow.steps',
  'add_step: argument names, defaults and return type as upstream, then pgflow-py''s trailing optional max_in_flight');
select has_function('pgflow', '_get_flow_shape', array['text'],
  'pgflow._get_flow_shape(text) exists');
select is(pgflow_tests.function_signature('_get_flow_shape'),
  '_get_flow_shape(p_flow_slug text) returns jsonb',
  '_get_flow_shape: argument names, defaults and return type as upstream');
select has_function('pgflow', '_compare_flow_shapes', array['jsonb', 'jsonb'],
  'pgflow._compare_flow_shapes(jsonb, jsonb) exists');
select is(pgflow_tests.function_signature('_compare_flow_shapes'),
  '_compare_flow_shapes(p_local jsonb, p_db jsonb) returns text[]',
  '_compare_flow_shapes: argument names, defaults and return type as upstream');
select has_function('pgflow', '_create_flow_from_shape', array['text', 'jsonb'],
  'pgflow._create_flow_from_shape(text, jsonb) exists');
select is(pgflow_tests.function_signature('_create_flow_from_shape'),
  '_create_flow_from_shape(p_flow_slug text, p_shape jsonb) returns void',
  '_create_flow_from_shape: argument names, defaults and return type as upstream');
select has_function('pgflow', 'ensure_flow_compiled', array['text', 'jsonb', 'boolean'],
  'pgflow.ensure_flow_compiled(text, jsonb, boolean) exists');
select is(pgflow_tests.function_signature('ensure_flow_compiled'),
  'ensure_flow_compiled(flow_slug text, shape jsonb, allow_data_loss boolean DEFAULT false) returns jsonb',
  'ensure_flow_compiled: argument names, defaults and return type as upstream');
select has_function('pgflow', 'delete_flow_and_data', array['text'],
  'pgflow.delete_flow_and_data(text) exists');
select is(pgflow_tests.function_signature('delete_flow_and_data'),
  'delete_flow_and_data(p_flow_slug text) returns void',
  'delete_flow_and_data: argument names, defaults and return type as upstream');

select * from finish();
rollback;
