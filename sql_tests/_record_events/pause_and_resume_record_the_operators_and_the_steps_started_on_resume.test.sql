begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (first -> second -> last); first claimed by worker 1111...
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');
select max(id) as last_id from pgflow.run_events \gset

-- TEST: pause_run: run:paused by the verb's actor with its reason, nothing else
select count(*) from pgflow.pause_run(:'run', 'alice', 'hold on');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values (null::text, 'run:paused'::text, 'alice'::text, 'hold on'::text)$$,
  'run:paused by alice, reason hold on'
);

-- TEST: the worker completes first while the run is paused: step:completed by the worker;
-- second is not started (no step:started)
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.complete_task(:'run', 'first', 0, '{"ok": true}'::jsonb);
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('first'::text, 'step:completed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text)$$,
  'first completed by the worker; nothing started'
);

-- TEST: resume_run: run:resumed, then second (ready meanwhile) started, both by the verb's
-- actor with its reason
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.resume_run(:'run', 'bob', 'go on');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values (null::text, 'run:resumed'::text, 'bob'::text, 'go on'::text),
           ('second', 'step:started', 'bob', 'go on')$$,
  'run:resumed and step:started of second, by bob'
);

select * from finish();
rollback;
