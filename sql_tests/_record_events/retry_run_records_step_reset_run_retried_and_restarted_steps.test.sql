begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: the diamond flow (root -> left, right -> last; max_attempts 1): root completed by
-- the worker, then left failed by the worker: the run failed, right and last cancelled
select pgflow_tests.setup_flow('diamond');
select run_id as run from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run', 'root');
select count(*) from pgflow_tests.start_and_fail_task(:'run', 'left', 0, 'kaboom');
select max(id) as last_id from pgflow.run_events \gset

-- TEST: retry_run records each step it resets (step:reset, details.from its status before),
-- the run (run:retried) and the steps that start again (step:started), all by the verb's
-- actor with its reason; the completed root gets nothing
select count(*) from pgflow.retry_run(:'run', 'carol', 'upstream fixed');
select bag_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events where id > %s$$, :last_id),
  $$values ('left'::text, 'step:reset'::text, 'carol'::text, 'upstream fixed'::text, '{"from": "failed"}'::jsonb),
           ('right', 'step:reset', 'carol', 'upstream fixed', '{"from": "cancelled"}'),
           ('last', 'step:reset', 'carol', 'upstream fixed', '{"from": "cancelled"}'),
           (null, 'run:retried', 'carol', 'upstream fixed', null),
           ('left', 'step:started', 'carol', 'upstream fixed', null),
           ('right', 'step:started', 'carol', 'upstream fixed', null)$$,
  'step:reset of left (from failed), right and last (from cancelled), run:retried, left and right started'
);

-- TEST: in that order: the resets, then the run, then the starts
select ok(
  (select max(id) from pgflow.run_events where id > :last_id and event = 'step:reset')
    < (select id from pgflow.run_events where id > :last_id and event = 'run:retried')
  and (select id from pgflow.run_events where id > :last_id and event = 'run:retried')
    < (select min(id) from pgflow.run_events where id > :last_id and event = 'step:started'),
  'step:reset rows, then run:retried, then step:started rows'
);
select is(array[coalesce(current_setting('pgflow.actor', true), ''), coalesce(current_setting('pgflow.reason', true), '')],
  array['', ''], 'pgflow.actor and pgflow.reason are unset again after the verb');

-- TEST: the attempts of the failed step before the retry stay in the trail
select results_eq(
  format($$select step_slug, event, details ->> 'error_message' from pgflow.run_events
           where run_id = %L and event in ('task:failed', 'step:failed') order by id$$, :'run'),
  $$values ('left'::text, 'task:failed'::text, 'kaboom'::text), ('left', 'step:failed', 'kaboom')$$,
  'task:failed and step:failed of left before the retry are kept'
);

select * from finish();
rollback;
