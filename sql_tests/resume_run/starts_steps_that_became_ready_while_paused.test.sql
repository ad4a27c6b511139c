begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last: first started, the run paused, then first completed
-- (second became ready but did not start)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select count(*) from pgflow.complete_task(:'run', 'first', 0, '{"x": 1}'::jsonb);
select status as second_before from pgflow.step_states where run_id = :'run' and step_slug = 'second' \gset
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: second was created while paused
select is(:'second_before'::text, 'created', 'second stayed created while the run was paused');

-- TEST: resume_run starts it and queues its task with a visible message
select is((select status from pgflow.resume_run(:'run', 'carol', 'go')), 'started', 'resume_run returns started');
select results_eq(
  format($$select ss.status, ss.started_at = now(), t.status
           from pgflow.step_states as ss join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L and ss.step_slug = 'second'$$, :'run'),
  $$values ('started'::text, true, 'queued'::text)$$,
  'second is started and its task queued'
);
select results_eq(
  $$select count(*), bool_and(vt <= clock_timestamp()) from pgmq.q_sequential$$,
  $$values (1::bigint, true)$$,
  'its message is in the queue, visible now'
);

-- TEST: run:resumed then step:started, both by carol for go
select results_eq(
  format($$select event, step_slug, actor, reason from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run', :last_event),
  $$values ('run:resumed'::text, null::text, 'carol'::text, 'go'::text), ('step:started', 'second', 'carol', 'go')$$,
  'events run:resumed and step:started of second, by carol'
);

select * from finish();
rollback;
