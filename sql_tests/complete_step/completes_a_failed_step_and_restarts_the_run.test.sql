begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: chain a -> b -> c, max_attempts 1: a completes, b fails, the run fails, c is cancelled
select pgflow.create_flow('f', max_attempts => 1);
select pgflow.add_step('f', 'a');
select pgflow.add_step('f', 'b', array['a']);
select pgflow.add_step('f', 'c', array['b']);
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'f', 'x');
select run_id from pgflow.start_flow('f', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'a', 0, '"A"'::jsonb, 1);
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.fail_task(:'run_id', 'b', 0, 'b broke', 1);
select max(id) as last_event from pgflow.run_events \gset

-- TEST: complete_step completes the failed step with the given output and restarts the run
select results_eq(
  format($$select * from pgflow.complete_step(%L, 'b', '{"by": "hand"}'::jsonb, 'alice', 'computed by hand')$$, :'run_id'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run_id'),
  'complete_step returns the run, started again, changed'
);
select results_eq(
  format($$select status, output, error_message, failed_at, completed_at is not null, remaining_tasks
           from pgflow.step_states where run_id = %L and step_slug = 'b'$$, :'run_id'),
  $$values ('completed'::text, '{"by": "hand"}'::jsonb, null::text, null::timestamptz, true, 0)$$,
  'b is completed with the output given, its error and failed_at cleared'
);
select results_eq(
  format($$select status, error_message from pgflow.step_tasks where run_id = %L and step_slug = 'b'$$, :'run_id'),
  $$values ('failed'::text, 'b broke'::text)$$,
  'b''s failed task stays as it was (the attempt that failed)'
);
select results_eq(
  format($$select status, failed_at, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, null::timestamptz, 1)$$,
  'the run is started again with one step (c) to go'
);

-- TEST: the dependent c is created again, started and gets b's output as input
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'c'$$, :'run_id'),
  $$values ('started'::text, 0)$$,
  'c is started again'
);
select results_eq(
  $$select step_slug, attempts_count, input
    from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('c'::text, 1, '{"b": {"by": "hand"}}'::jsonb)$$,
  'c''s task is claimed with b''s hand-made output as input'
);
select pgflow.complete_task(:'run_id', 'c', 0, '"C"'::jsonb, 1);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"c": "C"}'::jsonb)$$,
  'the run completes'
);

-- TEST: the events name the actor and reason
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events
           where run_id = %L and id > %s and event in ('step:completed', 'step:reset', 'run:retried') and actor = 'alice'
           order by id$$, :'run_id', :'last_event'),
  $$values ('b'::text, 'step:completed'::text, 'alice'::text, 'computed by hand'::text),
           ('c', 'step:reset', 'alice', 'computed by hand'),
           (null, 'run:retried', 'alice', 'computed by hand')$$,
  'step:completed, step:reset of c and run:retried are attributed to alice with the reason'
);

-- TEST: complete_step on a one-step failed run completes it at once
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as one_run from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'one_run', 'only');
select results_eq(
  format($$select status, changed from pgflow.complete_step(%L, 'only', '42'::jsonb, 'alice', null)$$, :'one_run'),
  $$values ('completed'::text, true)$$,
  'completing the only (failed) step of a failed run completes the run'
);
select results_eq(
  format($$select status, output, failed_at from pgflow.runs where run_id = %L$$, :'one_run'),
  $$values ('completed'::text, '{"only": 42}'::jsonb, null::timestamptz)$$,
  'its output is the hand-made output, failed_at cleared'
);

select * from finish();
rollback;
