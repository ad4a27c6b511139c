begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: sequential flow (first -> second -> last); first's task is started, the others
-- are created; the deadline passed
select pgflow_tests.setup_flow('sequential');
select run_id, deadline as started_deadline from pgflow.start_flow('sequential', '{}'::jsonb,
  deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_task(:'run_id', 'first');
select pgflow_tests.pass_deadline(:'run_id');
select deadline as passed from pgflow.runs where run_id = :'run_id' \gset

-- TEST: the run expires: status, expired_at, returned id
select is(pgflow._expire_runs(array[:'run_id']::uuid[]), array[:'run_id']::uuid[], 'the run is returned');
select results_eq(
  format($$select status, expired_at, paused_at, completed_at, failed_at, cancelled_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('expired'::text, now(), null::timestamptz, null::timestamptz, null::timestamptz, null::timestamptz)$$,
  'status expired, expired_at now, no other end time');

-- TEST: run:expired with details deadline and was, actor system
select results_eq(
  format($$select actor, details from pgflow.run_events where run_id = %L and event = 'run:expired'$$, :'run_id'),
  format($$values ('system'::text, jsonb_build_object('deadline', %L::timestamptz, 'was', 'started'))$$, :'passed'),
  'one run:expired event: actor system, details deadline and was');

-- TEST: every unfinished step is cancelled, with step:cancelled, and the started task too
select results_eq(
  format($$select step_slug, status, cancelled_at from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('first'::text, 'cancelled'::text, now()), ('last', 'cancelled', now()), ('second', 'cancelled', now())$$,
  'the three steps are cancelled');
select is(
  (select array_agg(step_slug order by step_slug) from pgflow.run_events where run_id = :'run_id' and event = 'step:cancelled'),
  array['first', 'last', 'second'], 'step:cancelled is recorded for each');
select results_eq(
  format($$select status, cancelled_at from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('cancelled'::text, now())$$, 'the started task is cancelled');

-- TEST: its message left the queue for the archive
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 1, "open_waits": 0}'::jsonb,
  'nothing is left live; the task message is archived');

-- TEST: the actor setting names who expired it (pgflow.actor)
select run_id as second_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.pass_deadline(:'second_run');
select set_config('pgflow.actor', 'janitor', true);
select pgflow._expire_runs(array[:'second_run']::uuid[]);
select set_config('pgflow.actor', '', true);
select is((select actor from pgflow.run_events where run_id = :'second_run' and event = 'run:expired'), 'janitor',
  'actor comes from pgflow.actor when set');
select is((select details ->> 'was' from pgflow.run_events where run_id = :'second_run' and event = 'run:expired'),
  'started', 'was: started');
select is((select status from pgflow.step_tasks where run_id = :'second_run'), 'cancelled',
  'its queued task is cancelled too');

select * from finish();
rollback;
