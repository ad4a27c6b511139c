begin;
select plan(18);

-- SQL is typed: a "wrong type" reaches pgflow as a literal that does not cast (rejected by
-- PostgreSQL before the function runs) or as a JSON value of the wrong kind (rejected by
-- pgflow). Ranges, modes, step types and non-object patterns have their own tests in
-- sql_tests/create_flow and sql_tests/add_step; this file covers the rest.

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'first');
select pgflow_tests.row_counts() as counts_before \gset

-- TEST: option literals that are not integers
select throws_ok($$ select pgflow.create_flow('flow_b', max_attempts => '3.5') $$, '22P02',
  'invalid input syntax for type integer: "3.5"', 'create_flow: max_attempts 3.5 is not an integer');
select throws_ok($$ select pgflow.create_flow('flow_b', timeout => 'soon') $$, '22P02',
  'invalid input syntax for type integer: "soon"', 'create_flow: timeout soon is not an integer');
select throws_ok($$ select pgflow.create_flow('flow_b', base_delay => '2147483648') $$, '22003',
  'value "2147483648" is out of range for type integer', 'create_flow: base_delay 2^31 is out of range');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', max_attempts => '3.5') $$, '22P02',
  'invalid input syntax for type integer: "3.5"', 'add_step: max_attempts 3.5 is not an integer');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', start_delay => '1.5') $$, '22P02',
  'invalid input syntax for type integer: "1.5"', 'add_step: start_delay 1.5 is not an integer');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', timeout => '-2147483649') $$, '22003',
  'value "-2147483649" is out of range for type integer', 'add_step: timeout below -2^31 is out of range');

-- TEST: extreme integers pass the cast and are caught by the range checks
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', base_delay => -2147483648) $$, '23514',
  'Option base_delay must be >= 0 (got -2147483648)', 'add_step: the most negative base_delay is rejected');
select throws_ok($$ select pgflow.create_flow('flow_b', timeout => 0) $$, '23514',
  'Option timeout must be >= 1 (got 0)', 'create_flow: timeout 0 is rejected');

-- TEST: dependency lists and patterns that do not parse
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', deps_slugs => 'first') $$, '22P02',
  'malformed array literal: "first"', 'add_step: deps_slugs must be an array');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', required_input_pattern => '{bad') $$, '22P02',
  'invalid input syntax for type json', 'add_step: a pattern that is not JSON is rejected');
select throws_ok($$ select pgflow.add_step('flow_a', 'bad', forbidden_input_pattern => '[{"a": 1}]') $$, '23514',
  'forbidden_input_pattern of step ''bad'' must be a JSON object (got array)',
  'add_step: an array of objects is not a pattern');

-- TEST: flow shapes (what a worker sends to ensure_flow_compiled) with options of the
-- wrong JSON type or range are rejected and leave nothing behind
select throws_ok($$ select pgflow.ensure_flow_compiled('from_shape',
    '{"steps": [], "options": {"maxAttempts": "three"}}') $$, '22P02',
  'invalid input syntax for type integer: "three"', 'shape: maxAttempts "three" is not an integer');
select throws_ok($$ select pgflow.ensure_flow_compiled('from_shape',
    '{"steps": [], "options": {"baseDelay": 1.5}}') $$, '22P02',
  'invalid input syntax for type integer: "1.5"', 'shape: baseDelay 1.5 is not an integer');
select throws_ok($$ select pgflow.ensure_flow_compiled('from_shape',
    '{"steps": [], "options": {"timeout": true}}') $$, '22P02',
  'invalid input syntax for type integer: "true"', 'shape: timeout true is not an integer');
select throws_ok(format($$ select pgflow.ensure_flow_compiled('from_shape', %L) $$,
    pgflow_tests.shape(pgflow_tests.shape_step('a', options => '{"startDelay": -5}'))), '23514',
  'Option start_delay must be >= 0 (got -5)', 'shape: a negative step startDelay is rejected');
select throws_ok($$ select pgflow.ensure_flow_compiled('from_shape', '{"steps": {"slug": "a"}}') $$,
  '22023', 'Shape of flow ''from_shape'' must be a JSON object with a "steps" array (got object)',
  'shape: steps must be an array');
select throws_ok($$ select pgflow.ensure_flow_compiled('from_shape',
    '{"steps": [{"slug": "a", "dependencies": "first"}]}') $$,
  '22023', 'cannot extract elements from a scalar', 'shape: dependencies must be an array');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(), :'counts_before'::jsonb,
  'no flow, step, dependency or queue was added by any rejected call');

select * from finish();
rollback;
