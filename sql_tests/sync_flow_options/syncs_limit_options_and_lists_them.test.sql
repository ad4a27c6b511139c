begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a flow compiled with limit options
select pgflow.ensure_flow_compiled('limited', '{"options": {"maxAttempts": 2, "concurrencyLimit": 2,
    "onLimit": "reject", "runTimeout": 60},
  "steps": [{"slug": "first", "stepType": "single", "dependencies": [], "options": {"maxInFlight": 3}},
            {"slug": "second", "stepType": "map", "dependencies": ["first"]}]}'::jsonb);

-- TEST: the same options change nothing
select is(
  pgflow.sync_flow_options('limited', '{"options": {"maxAttempts": 2, "concurrencyLimit": 2,
      "onLimit": "reject", "runTimeout": 60},
    "steps": [{"slug": "first", "options": {"maxInFlight": 3}}, {"slug": "second"}]}'::jsonb),
  '[]'::jsonb,
  'options as stored: no change');

-- TEST: changed, added and removed limit options are applied and listed, flow first
select is(
  pgflow.sync_flow_options('limited', '{"options": {"maxAttempts": 2, "concurrencyLimit": 5},
    "steps": [{"slug": "first"}, {"slug": "second", "options": {"maxInFlight": 4}}]}'::jsonb),
  '[{"step_slug": null, "option": "concurrency_limit", "from": 2, "to": 5},
    {"step_slug": null, "option": "on_limit", "from": "reject", "to": "queue"},
    {"step_slug": null, "option": "run_timeout", "from": 60, "to": null},
    {"step_slug": "first", "option": "max_in_flight", "from": 3, "to": null},
    {"step_slug": "second", "option": "max_in_flight", "from": null, "to": 4}]'::jsonb,
  'each change is listed with its old and new value (left out: no limit, queue, no run timeout)');
select results_eq(
  $$select opt_max_attempts, opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows
    where flow_slug = 'limited'$$,
  $$values (2, 5, 'queue'::text, null::int)$$,
  'the flow options are the new ones');
select results_eq(
  $$select step_slug, opt_max_in_flight from pgflow.steps where flow_slug = 'limited' order by step_index$$,
  $$values ('first'::text, null::int), ('second', 4)$$,
  'the step options are the new ones');

-- TEST: a repeated call changes nothing more; an explicit onLimit "queue" equals the default
select is(
  pgflow.sync_flow_options('limited', '{"options": {"maxAttempts": 2, "concurrencyLimit": 5, "onLimit": "queue"},
    "steps": [{"slug": "first"}, {"slug": "second", "options": {"maxInFlight": 4}}]}'::jsonb),
  '[]'::jsonb,
  'a repeated call returns no change');

-- TEST: limits set again from none, with upstream's options changed in the same call
select is(
  pgflow.sync_flow_options('limited', '{"options": {"maxAttempts": 2, "timeout": 30, "onLimit": "reject", "runTimeout": 10},
    "steps": [{"slug": "first", "options": {"maxInFlight": 1, "timeout": 5}}, {"slug": "second", "options": {"maxInFlight": 4}}]}'::jsonb),
  '[{"step_slug": null, "option": "timeout", "from": 60, "to": 30},
    {"step_slug": null, "option": "concurrency_limit", "from": 5, "to": null},
    {"step_slug": null, "option": "on_limit", "from": "queue", "to": "reject"},
    {"step_slug": null, "option": "run_timeout", "from": null, "to": 10},
    {"step_slug": "first", "option": "timeout", "from": null, "to": 5},
    {"step_slug": "first", "option": "max_in_flight", "from": null, "to": 1}]'::jsonb,
  'changes are listed in option order: upstream''s first, then the pgflow-py ones');
select results_eq(
  $$select f.opt_timeout, f.opt_concurrency_limit, f.opt_on_limit, f.opt_run_timeout, s.opt_timeout, s.opt_max_in_flight
    from pgflow.flows as f join pgflow.steps as s using (flow_slug)
    where f.flow_slug = 'limited' and s.step_slug = 'first'$$,
  $$values (30, null::int, 'reject'::text, 10, 5, 1)$$,
  'all of them are stored');

-- TEST: the structure is untouched
select is(
  pgflow.ensure_flow_compiled('limited', '{"steps": [{"slug": "first", "stepType": "single", "dependencies": []},
    {"slug": "second", "stepType": "map", "dependencies": ["first"]}]}'::jsonb) ->> 'status',
  'verified',
  'the flow still verifies against its structure');

select * from finish();
rollback;
