begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (max_attempts 1); first claimed by worker 1111...
select pgflow_tests.setup_flow('sequential');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'sequential', 'x');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select attempts_count as attempt
from pgflow.read_and_start_tasks('sequential', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset

-- TEST: the exhausted failure: step:failed with details.error_message, then the run's
-- unfinished steps step:cancelled (no details), all by the worker
select count(*) from pgflow.fail_task(:'run', 'first', 0, 'kaboom', :attempt);
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events
           where run_id = %L and step_slug is not null and task_index is null order by id$$, :'run'),
  $$values ('first'::text, 'step:started'::text, 'app'::text, null::jsonb),
           ('first', 'step:failed', 'worker:11111111-1111-1111-1111-111111111111', '{"error_message": "kaboom"}'),
           ('last', 'step:cancelled', 'worker:11111111-1111-1111-1111-111111111111', null),
           ('second', 'step:cancelled', 'worker:11111111-1111-1111-1111-111111111111', null)$$,
  'first failed (error_message kaboom); last and second cancelled'
);
select results_eq(
  format($$select event, actor, details from pgflow.run_events where run_id = %L and event = 'run:failed'$$, :'run'),
  $$values ('run:failed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text, '{"error_message": "kaboom"}'::jsonb)$$,
  'run:failed by the worker, details.error_message kaboom'
);

-- TEST: a root whose condition is unmet in fail mode fails at start_flow: step:failed and
-- run:failed with error_message Condition not met, by system (the cascade's), after the
-- run:started by app
select pgflow.create_flow('guarded', max_attempts => 1);
select pgflow.add_step('guarded', 'root', required_input_pattern => '{"go": true}', when_unmet => 'fail');
select run_id as guarded_run from pgflow.start_flow('guarded', '{"go": false}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events where run_id = %L order by id$$, :'guarded_run'),
  $$values (null::text, 'run:started'::text, 'app'::text, null::jsonb),
           ('root', 'step:failed', 'system', '{"error_message": "Condition not met"}'),
           (null, 'run:failed', 'system', '{"error_message": "Condition not met"}')$$,
  'run:started (app), step:failed and run:failed (system) with Condition not met'
);

-- TEST: a run failed without an error message of its own (a type violation: the step has
-- one, the run none) records run:failed without details
select pgflow_tests.setup_flow('map_chain');
select run_id as chain_run from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'chain_run', 'producer', 0, '"not an array"'::jsonb);
select results_eq(
  format($$select event, actor, details is null, details ? 'error_message' from pgflow.run_events
           where run_id = %L and event in ('step:failed', 'run:failed') order by id$$, :'chain_run'),
  $$values ('step:failed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text, false, true),
           ('run:failed', 'worker:11111111-1111-1111-1111-111111111111', true, null)$$,
  'type violation: step:failed carries an error_message, run:failed no details'
);

select * from finish();
rollback;
