begin;
select plan(22);
select pgflow_tests.reset_db();

-- The checks of runs, step_states and step_tasks are written in their shortest form
-- (array constants, "not (x < y)"): each still refuses the rows it names and accepts a NULL
-- where the longer form did.

-- SETUP: one run of a 3-step chain (first started with a queued task, second created)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
create function pg_temp.refuses(tbl text, assignment text, step text, check_name text)
returns text language sql as $$
  select throws_ok(
    format('update pgflow.%I set %s where run_id = %L%s', tbl, assignment, current_setting('t.run_id'),
           case when step is null then '' else format(' and step_slug = %L', step) end),
    '23514',
    format('new row for relation "%s" violates check constraint "%s"', tbl, check_name),
    format('%s refuses %s (%s)', tbl, assignment, check_name))
$$;
select set_config('t.run_id', :'run_id', true);

-- TEST: runs
select pg_temp.refuses('runs', 'status = ''done''', null, 'status_is_valid');
select pg_temp.refuses('runs', 'completed_at = started_at - interval ''1 s''', null, 'completed_at_is_after_started_at');
select pg_temp.refuses('runs', 'failed_at = started_at - interval ''1 s''', null, 'failed_at_is_after_started_at');
-- TEST: step_states
select pg_temp.refuses('step_states', 'status = ''done''', 'second', 'status_is_valid');
select pg_temp.refuses('step_states', 'remaining_tasks = 1', 'second', 'remaining_tasks_state_consistency');
select pg_temp.refuses('step_states', 'completed_at = now(), remaining_tasks = 0, skipped_at = now(), skip_reason = ''x'', status = ''skipped''',
                       'first', 'completed_at_or_failed_at_or_skipped_at');
select pg_temp.refuses('step_states', 'initial_tasks = -1', 'second', 'step_states_initial_tasks_check');
select pg_temp.refuses('step_states', 'started_at = created_at - interval ''1 s''', 'first', 'started_at_is_after_created_at');
select pg_temp.refuses('step_states', 'completed_at = started_at - interval ''1 s''', 'first', 'completed_at_is_after_started_at');
select pg_temp.refuses('step_states', 'failed_at = started_at - interval ''1 s''', 'first', 'failed_at_is_after_started_at');
select pg_temp.refuses('step_states', 'skipped_at = created_at - interval ''1 s''', 'second', 'skipped_at_is_after_created_at');

-- TEST: step_tasks
select pg_temp.refuses('step_tasks', 'status = ''done''', 'first', 'valid_status');
select pg_temp.refuses('step_tasks', 'output = ''1''', 'first', 'output_valid_only_for_completed');
select pg_temp.refuses('step_tasks', 'completed_at = queued_at - interval ''1 s''', 'first', 'completed_at_is_after_queued_at');
select pg_temp.refuses('step_tasks', 'failed_at = queued_at - interval ''1 s''', 'first', 'failed_at_is_after_queued_at');
select pg_temp.refuses('step_tasks', 'started_at = queued_at - interval ''1 s''', 'first', 'started_at_is_after_queued_at');
select pg_temp.refuses('step_tasks', 'started_at = queued_at + interval ''2 s'', completed_at = queued_at + interval ''1 s''',
                       'first', 'completed_at_is_after_started_at');
select pg_temp.refuses('step_tasks', 'started_at = queued_at + interval ''2 s'', failed_at = queued_at + interval ''1 s''',
                       'first', 'failed_at_is_after_started_at');

-- TEST: what the checks accept: every status of the lists, a NULL where the longer form
-- allowed one
select lives_ok(format($$update pgflow.runs set status = 'paused', paused_at = now() where run_id = %L$$, :'run_id'),
  'runs accepts the status paused');
select lives_ok(
  format($$update pgflow.step_states set status = 'skipped', skip_reason = 'condition_unmet', skipped_at = now()
           where run_id = %L and step_slug = 'last'$$, :'run_id'),
  'step_states accepts a skipped step with one end time');
select lives_ok(
  format($$update pgflow.step_states set status = 'started', started_at = now(), initial_tasks = 1, remaining_tasks = 1
           where run_id = %L and step_slug = 'second'$$, :'run_id'),
  'step_states accepts remaining_tasks on a started step');
select lives_ok(
  format($$update pgflow.step_tasks set status = 'completed', output = '1', completed_at = queued_at + interval '1 s'
           where run_id = %L and step_slug = 'first'$$, :'run_id'),
  'step_tasks accepts a completed_at with started_at NULL');

select * from finish();
rollback;
