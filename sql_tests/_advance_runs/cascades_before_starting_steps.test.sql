begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: run 1: producer -> mapper (map) -> reducer, producer finished with []; run 2:
-- first -> gate (if {"first": {"ok": true}}, else fail), first finished with {"ok": false}
select pgflow_tests.setup_flow('map_chain');
select pgflow.create_flow('strict_chain');
select pgflow.add_step('strict_chain', 'first');
select pgflow.add_step('strict_chain', 'gate', array['first'], required_input_pattern => '{"first": {"ok": true}}',
  when_unmet => 'fail');
select run_id as r1 from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('strict_chain', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'r1', 'producer', '[]');
select pgflow_tests.finish_step(:'r2', 'first', '{"ok": false}');
delete from realtime.messages;
select pgflow._advance_runs(array[:'r1', :'r2']::uuid[]);

-- TEST: run 1: the empty map completed, then its dependent started
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L and step_slug <> 'producer'
           order by step_slug$$, :'r1'),
  $$values ('mapper'::text, 'completed'::text), ('reducer', 'started')$$,
  'the empty map is completed and the reducer started'
);
select is(
  pgflow_tests.run_events(:'r1'),
  array['step:mapper:completed', 'step:reducer:started'],
  'events: the cascade''s step:completed, then step:started'
);

-- TEST: run 2: the fail-mode condition failed the run; nothing was started
select results_eq(
  format($$select r.status, ss.status, (select count(*)::int from pgflow.step_tasks where run_id = %1$L and step_slug = 'gate')
           from pgflow.runs as r join pgflow.step_states as ss on ss.run_id = r.run_id and ss.step_slug = 'gate'
           where r.run_id = %1$L$$, :'r2'),
  $$values ('failed'::text, 'failed'::text, 0)$$,
  'run 2 and its gate are failed, the gate has no task'
);
select is(
  pgflow_tests.run_events(:'r2'),
  array['step:gate:failed', 'run:failed'],
  'events: step:gate:failed then run:failed, no run:completed'
);

select * from finish();
rollback;
