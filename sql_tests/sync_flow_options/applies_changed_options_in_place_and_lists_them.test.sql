begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a flow compiled with options, one run in flight
select pgflow.ensure_flow_compiled('opts', '{"options": {"maxAttempts": 2, "timeout": 30},
  "steps": [{"slug": "first", "stepType": "single", "dependencies": [], "options": {"timeout": 10}},
            {"slug": "second", "stepType": "single", "dependencies": ["first"]}]}'::jsonb);
select run_id from pgflow.start_flow('opts', '{}'::jsonb) \gset

-- TEST: the same options change nothing
select is(
  pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": 2, "timeout": 30},
    "steps": [{"slug": "first", "options": {"timeout": 10}}, {"slug": "second"}]}'::jsonb),
  '[]'::jsonb,
  'options as stored: no change'
);

-- TEST: changed, added and removed options are applied and listed, flow first
select is(
  pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": 5, "baseDelay": 2},
    "steps": [{"slug": "first"}, {"slug": "second", "options": {"startDelay": 7, "maxAttempts": 1}}]}'::jsonb),
  '[{"step_slug": null, "option": "max_attempts", "from": 2, "to": 5},
    {"step_slug": null, "option": "base_delay", "from": 5, "to": 2},
    {"step_slug": null, "option": "timeout", "from": 30, "to": 60},
    {"step_slug": "first", "option": "timeout", "from": 10, "to": null},
    {"step_slug": "second", "option": "max_attempts", "from": null, "to": 1},
    {"step_slug": "second", "option": "start_delay", "from": null, "to": 7}]'::jsonb,
  'each change is listed with its old and new value (unset = default / inherit)'
);
select results_eq(
  $$select opt_max_attempts, opt_base_delay, opt_timeout from pgflow.flows where flow_slug = 'opts'$$,
  $$values (5, 2, 60)$$,
  'the flow options are the new ones (an option left out is back to its default)'
);
select results_eq(
  $$select step_slug, opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay
    from pgflow.steps where flow_slug = 'opts' order by step_index$$,
  $$values ('first'::text, null::int, null::int, null::int, null::int), ('second', 1, null, null, 7)$$,
  'the step options are the new ones (an option left out inherits the flow''s)'
);

-- TEST: nothing else changes: structure, the run in flight and its task
select is(
  (select count(*)::int from pgflow.deps where flow_slug = 'opts' and step_slug = 'second' and dep_slug = 'first'),
  1,
  'dependencies are kept'
);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 2)$$,
  'the run in flight is untouched'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and status = 'queued'),
  1,
  'its queued task is untouched'
);

-- TEST: a repeated call changes nothing more
select is(
  pgflow.sync_flow_options('opts', '{"options": {"maxAttempts": 5, "baseDelay": 2},
    "steps": [{"slug": "first"}, {"slug": "second", "options": {"startDelay": 7, "maxAttempts": 1}}]}'::jsonb),
  '[]'::jsonb,
  'a repeated call returns no change'
);

select * from finish();
rollback;
