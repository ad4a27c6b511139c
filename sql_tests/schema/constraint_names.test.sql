begin;
select plan(13);

-- TEST: upstream's constraint names (clients and upstream tests refer to them)
select results_eq(
  $$ select conname::text collate "default" from pg_constraint
     where conrelid = 'pgflow.flows'::regclass and contype = 'c'
       and conname in ('slug_is_valid', 'opt_max_attempts_is_nonnegative',
                       'opt_base_delay_is_nonnegative', 'opt_timeout_is_positive')
     order by conname $$,
  $$ values ('opt_base_delay_is_nonnegative'), ('opt_max_attempts_is_nonnegative'),
            ('opt_timeout_is_positive'), ('slug_is_valid') $$,
  'flows has the checks slug_is_valid, opt_max_attempts_is_nonnegative, opt_base_delay_is_nonnegative, opt_timeout_is_positive');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.steps'::regclass and conname = 'steps_pkey'),
  'p', 'the steps primary key is named steps_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.deps'::regclass and conname = 'deps_pkey'),
  'p', 'the deps primary key is named deps_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.step_tasks'::regclass and conname = 'step_tasks_pkey'),
  'p', 'the step_tasks primary key is named step_tasks_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.step_tasks'::regclass and conname = 'valid_status'),
  'c', 'step_tasks has a check named valid_status');

-- TEST: every constraint of upstream's tables carries upstream 0.14.1's name (named ones as
-- upstream named them, the others as PostgreSQL names an unnamed constraint), and the only
-- others are ours and say so with the pgflow_py_ prefix (compat/UPSTREAM.md "Constraint names").
select set_eq(
  $$ select conrelid::regclass::text, conname::text from pg_constraint
     where conrelid in ('pgflow.flows'::regclass, 'pgflow.steps'::regclass, 'pgflow.deps'::regclass,
                        'pgflow.runs'::regclass, 'pgflow.step_states'::regclass,
                        'pgflow.step_tasks'::regclass, 'pgflow.workers'::regclass,
                        'pgflow.worker_functions'::regclass) $$,
  $$ values
    ('pgflow.flows', 'flows_pkey'), ('pgflow.flows', 'slug_is_valid'),
    ('pgflow.flows', 'opt_max_attempts_is_nonnegative'), ('pgflow.flows', 'opt_base_delay_is_nonnegative'),
    ('pgflow.flows', 'opt_timeout_is_positive'),
    ('pgflow.steps', 'steps_pkey'), ('pgflow.steps', 'steps_flow_slug_fkey'),
    ('pgflow.steps', 'steps_flow_slug_step_index_key'), ('pgflow.steps', 'steps_step_slug_check'),
    ('pgflow.steps', 'steps_step_type_check'), ('pgflow.steps', 'steps_deps_count_check'),
    ('pgflow.steps', 'opt_max_attempts_is_nonnegative'), ('pgflow.steps', 'opt_base_delay_is_nonnegative'),
    ('pgflow.steps', 'opt_timeout_is_positive'), ('pgflow.steps', 'opt_start_delay_is_nonnegative'),
    ('pgflow.steps', 'required_input_pattern_is_object'), ('pgflow.steps', 'forbidden_input_pattern_is_object'),
    ('pgflow.steps', 'when_unmet_is_valid'), ('pgflow.steps', 'when_exhausted_is_valid'),
    ('pgflow.deps', 'deps_pkey'), ('pgflow.deps', 'deps_flow_slug_fkey'),
    ('pgflow.deps', 'deps_flow_slug_dep_slug_fkey'), ('pgflow.deps', 'deps_flow_slug_step_slug_fkey'),
    ('pgflow.deps', 'deps_check'),
    ('pgflow.runs', 'runs_pkey'), ('pgflow.runs', 'runs_flow_slug_fkey'),
    ('pgflow.runs', 'runs_remaining_steps_check'), ('pgflow.runs', 'status_is_valid'),
    ('pgflow.runs', 'completed_at_or_failed_at'), ('pgflow.runs', 'completed_at_is_after_started_at'),
    ('pgflow.runs', 'failed_at_is_after_started_at'),
    ('pgflow.step_states', 'step_states_pkey'), ('pgflow.step_states', 'step_states_flow_slug_fkey'),
    ('pgflow.step_states', 'step_states_run_id_fkey'), ('pgflow.step_states', 'step_states_flow_slug_step_slug_fkey'),
    ('pgflow.step_states', 'status_is_valid'), ('pgflow.step_states', 'status_and_remaining_tasks_match'),
    ('pgflow.step_states', 'remaining_tasks_state_consistency'), ('pgflow.step_states', 'initial_tasks_known_when_started'),
    ('pgflow.step_states', 'output_only_for_completed_or_null'), ('pgflow.step_states', 'skip_reason_matches_status'),
    ('pgflow.step_states', 'completed_at_or_failed_at_or_skipped_at'),
    ('pgflow.step_states', 'step_states_remaining_deps_check'), ('pgflow.step_states', 'step_states_initial_tasks_check'),
    ('pgflow.step_states', 'started_at_is_after_created_at'), ('pgflow.step_states', 'completed_at_is_after_started_at'),
    ('pgflow.step_states', 'failed_at_is_after_started_at'), ('pgflow.step_states', 'skipped_at_is_after_created_at'),
    ('pgflow.step_tasks', 'step_tasks_pkey'), ('pgflow.step_tasks', 'step_tasks_flow_slug_fkey'),
    ('pgflow.step_tasks', 'step_tasks_run_id_fkey'), ('pgflow.step_tasks', 'step_tasks_run_id_step_slug_fkey'),
    ('pgflow.step_tasks', 'step_tasks_last_worker_id_fkey'), ('pgflow.step_tasks', 'valid_status'),
    ('pgflow.step_tasks', 'output_valid_only_for_completed'), ('pgflow.step_tasks', 'attempts_count_nonnegative'),
    ('pgflow.step_tasks', 'completed_at_or_failed_at'), ('pgflow.step_tasks', 'completed_at_is_after_queued_at'),
    ('pgflow.step_tasks', 'failed_at_is_after_queued_at'), ('pgflow.step_tasks', 'started_at_is_after_queued_at'),
    ('pgflow.step_tasks', 'completed_at_is_after_started_at'), ('pgflow.step_tasks', 'failed_at_is_after_started_at'),
    ('pgflow.step_tasks', 'pgflow_py_requeued_count_nonnegative'),
    ('pgflow.flows', 'pgflow_py_concurrency_limit_is_positive'), ('pgflow.flows', 'pgflow_py_on_limit_is_valid'),
    ('pgflow.flows', 'pgflow_py_run_timeout_is_positive'), ('pgflow.steps', 'pgflow_py_max_in_flight_is_positive'),
    ('pgflow.workers', 'workers_pkey'),
    ('pgflow.worker_functions', 'worker_functions_pkey'), ('pgflow.worker_functions', 'worker_functions_debounce_check') $$,
  'the constraints of upstream''s tables are upstream''s, plus pgflow_py_* checks (requeued_count, concurrency_limit, on_limit, run_timeout, max_in_flight)'
);
select throws_ok(
  $$ insert into pgflow.steps (flow_slug, step_slug, step_type) values ('f', 's', 'loop') $$,
  '23514', null,
  'a step type outside single / map is rejected'
);
create temp table raised (call text, constraint_name text);
select pgflow.create_flow('names_flow');
select pgflow.add_step('names_flow', 'a');
do $$
declare
  v_call text;
  v_constraint text;
begin
  foreach v_call in array array[
    'select pgflow.add_step(''names_flow'', ''1bad'')',
    'select pgflow.add_step(''names_flow'', ''b'', step_type => ''loop'')',
    'select pgflow.add_step(''names_flow'', ''c'', array[''c''])'
  ] loop
    begin
      execute v_call;
    exception when check_violation then
      get stacked diagnostics v_constraint = constraint_name;
      insert into raised values (v_call, v_constraint);
    end;
  end loop;
end $$;
select results_eq(
  $$ select constraint_name from raised order by call $$,
  $$ values ('steps_step_slug_check'), ('steps_step_type_check'), ('deps_check') $$,
  'add_step names upstream''s constraint in its check violations (slug, self dependency, step type)'
);

-- TEST: the named checks reject what upstream's reject
select throws_ok(
  $$ insert into pgflow.flows (flow_slug) values ('1bad') $$,
  '23514', 'new row for relation "flows" violates check constraint "slug_is_valid"',
  'an invalid flow slug violates slug_is_valid');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_max_attempts) values ('ok_flow', -1) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_max_attempts_is_nonnegative"',
  'a negative max_attempts violates opt_max_attempts_is_nonnegative');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_base_delay) values ('ok_flow', -1) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_base_delay_is_nonnegative"',
  'a negative base_delay violates opt_base_delay_is_nonnegative');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_timeout) values ('ok_flow', 0) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_timeout_is_positive"',
  'a zero timeout violates opt_timeout_is_positive');
select throws_like(
  $$ insert into pgflow.deps (flow_slug, dep_slug, step_slug) values ('f', 'a', 'a') $$,
  '%check constraint%',
  'a self edge in deps violates a check constraint (dep_slug <> step_slug)');

select * from finish();
rollback;
