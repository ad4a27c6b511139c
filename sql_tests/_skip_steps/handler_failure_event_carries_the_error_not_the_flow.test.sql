begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two runs of two_roots; in each, root_a is skipped
select pgflow_tests.setup_flow('two_roots');
select run_id as r1 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow._skip_steps(:'r1', array['root_a'], 'condition_unmet');
select pgflow._skip_steps(:'r2', array['root_a'], 'handler_failed', 'KeyError: x');

-- TEST: without an error, step:skipped carries flow_slug and no error (upstream's shape)
select ok(
  pgflow_tests.event_payload(:'r1', 'step:root_a:skipped') @> jsonb_build_object(
    'event_type', 'step:skipped', 'flow_slug', 'two_roots', 'status', 'skipped',
    'skip_reason', 'condition_unmet'),
  'condition skip: flow_slug and skip_reason'
);
select ok(not (pgflow_tests.event_payload(:'r1', 'step:root_a:skipped') ? 'error_message'),
  'condition skip: no error_message');

-- TEST: after a handler failure it carries error_message and no flow_slug
select ok(
  pgflow_tests.event_payload(:'r2', 'step:root_a:skipped') @> jsonb_build_object(
    'skip_reason', 'handler_failed', 'error_message', 'KeyError: x'),
  'handler failure: the error'
);
select is(
  (select error_message from pgflow.step_states where run_id = :'r2' and step_slug = 'root_a'),
  'KeyError: x', 'the step keeps the error');

select * from finish();
rollback;
