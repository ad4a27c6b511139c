begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: two runs of the sequential flow (max_attempts 1: a failed task fails the run)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as run2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: every status change of a run is named after where it went and recorded by the
-- transition that made it: paused and resumed by the verbs, failed by the worker's report,
-- retried and cancelled by the verbs; back to started after paused is run:resumed, after
-- failed run:retried
select count(*) from pgflow.pause_run(:'run', 'alice', 'hold');
select count(*) from pgflow.resume_run(:'run', 'bob', 'go on');
select count(*) from pgflow_tests.start_and_fail_task(:'run', 'first');
select count(*) from pgflow.retry_run(:'run', 'carol', 'fixed');
select count(*) from pgflow.cancel_run(:'run', 'dave', 'abandoned');
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where run_id = %L and step_slug is null order by id$$, :'run'),
  $$values ('run:started'::text, 'app'::text, null::text),
           ('run:paused', 'alice', 'hold'),
           ('run:resumed', 'bob', 'go on'),
           ('run:failed', 'worker:11111111-1111-1111-1111-111111111111', null),
           ('run:retried', 'carol', 'fixed'),
           ('run:cancelled', 'dave', 'abandoned')$$,
  'started, paused, resumed, failed, retried, cancelled, each by whoever made it'
);

-- TEST: a run whose last step the worker completes: started, completed
select count(*) from pgflow_tests.start_and_complete_task(:'run2', 'first');
select count(*) from pgflow_tests.start_and_complete_task(:'run2', 'second');
select count(*) from pgflow_tests.start_and_complete_task(:'run2', 'last');
select results_eq(
  format($$select event, actor from pgflow.run_events where run_id = %L and step_slug is null order by id$$, :'run2'),
  $$values ('run:started'::text, 'app'::text), ('run:completed', 'worker:11111111-1111-1111-1111-111111111111')$$,
  'started, completed (by the worker)'
);

select * from finish();
rollback;
