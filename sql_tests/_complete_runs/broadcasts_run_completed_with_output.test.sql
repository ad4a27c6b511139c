begin;
select plan(2);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a one-step run finished by hand
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.finish_step_keep_run(:'run_id', 'only', '[1, 2]');
delete from realtime.messages;
select pgflow._complete_runs(array[:'run_id']::uuid[]);

-- TEST: exactly one run:completed with the run's output
select is(pgflow_tests.run_events(:'run_id'), array['run:completed'], 'one run:completed event');
select ok(
  pgflow_tests.event_payload(:'run_id', 'run:completed') @> jsonb_build_object(
    'event_type', 'run:completed', 'run_id', :'run_id'::uuid, 'flow_slug', 'one_step',
    'status', 'completed', 'output', '{"only": [1, 2]}'::jsonb)
  and pgflow_tests.event_payload(:'run_id', 'run:completed') ? 'completed_at',
  'the payload carries flow_slug, status, output and completed_at'
);

select * from finish();
rollback;
