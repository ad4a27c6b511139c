begin;
select plan(13);
select pgflow_tests.reset_db();

-- SETUP
select pgflow.ensure_flow_compiled('opts', '{"options": {"maxAttempts": 2},
  "steps": [{"slug": "first", "stepType": "single", "dependencies": []}]}'::jsonb);
create temp table before_flows as select * from pgflow.flows;
create temp table before_steps as select * from pgflow.steps;

-- TEST: each bad input raises a clear error
select throws_ok(
  $$select pgflow.sync_flow_options('nope', '{"steps": []}'::jsonb)$$,
  '23503', 'Flow ''nope'' does not exist', 'an unknown flow'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '[]'::jsonb)$$,
  '22023', 'Shape of flow ''opts'' must be a JSON object with a "steps" array (got array)', 'a shape that is not an object'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": 1}}'::jsonb)$$,
  '22023', 'Shape of flow ''opts'' must be a JSON object with a "steps" array (got object)', 'a shape without steps'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"steps": [{"slug": "first"}, {"slug": "extra"}]}'::jsonb)$$,
  '22023', 'Step ''extra'' is not in both the shape and the stored flow ''opts''', 'a step the stored flow lacks'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"steps": []}'::jsonb)$$,
  '22023', 'Step ''first'' is not in both the shape and the stored flow ''opts''', 'a stored step the shape lacks'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": 3},
      "steps": [{"slug": "first", "options": {"timeout": 0}}]}'::jsonb)$$,
  '23514', 'Option timeout must be >= 1 (got 0)', 'a step option out of range'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"options": {"baseDelay": -1}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '23514', 'Option base_delay must be >= 0 (got -1)', 'a flow option out of range'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": "many"}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '22P02', null, 'a value that is not an integer'
);

select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"steps": [{}]}'::jsonb)$$,
  '22023', 'Shape of flow ''opts'': each step must be an object with a "slug" string, and every "options" an object',
  'a step without a slug'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"steps": [{"slug": "first"}, {}]}'::jsonb)$$,
  '22023', 'Shape of flow ''opts'': each step must be an object with a "slug" string, and every "options" an object',
  'an extra entry without a slug'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"options": "x", "steps": [{"slug": "first"}]}'::jsonb)$$,
  '22023', 'Shape of flow ''opts'': each step must be an object with a "slug" string, and every "options" an object',
  'options that are not an object'
);
select throws_ok(
  $$select pgflow.sync_flow_options('opts', '{"steps": [{"slug": "first"}, {"slug": "first"}]}'::jsonb)$$,
  '22023', 'Step ''first'' appears twice in the shape of flow ''opts''',
  'a step listed twice'
);

-- TEST: nothing was written by any of them
select ok(
  (select count(*) = 0 from (select * from pgflow.flows except select * from before_flows) as d)
  and (select count(*) = 0 from (select * from pgflow.steps except select * from before_steps) as d),
  'flows and steps are unchanged'
);

select * from finish();
rollback;
