begin;
select plan(10);

-- TEST: columns in physical order with their types (as upstream's table, compat/UPSTREAM.md),
-- then pgflow-py's column, appended at the end
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.step_states') $$,
  $$ values ('flow_slug', 'text'),
            ('run_id', 'uuid'),
            ('step_slug', 'text'),
            ('status', 'text'),
            ('remaining_tasks', 'integer'),
            ('remaining_deps', 'integer'),
            ('created_at', 'timestamp with time zone'),
            ('started_at', 'timestamp with time zone'),
            ('completed_at', 'timestamp with time zone'),
            ('failed_at', 'timestamp with time zone'),
            ('error_message', 'text'),
            ('initial_tasks', 'integer'),
            ('output', 'jsonb'),
            ('skip_reason', 'text'),
            ('skipped_at', 'timestamp with time zone'),
            ('cancelled_at', 'timestamp with time zone') $$,
  'pgflow.step_states columns are in the upstream physical order, then pgflow-py''s cancelled_at');

-- TEST: keys, nullability and defaults
select col_is_pk('pgflow', 'step_states', array['run_id', 'step_slug'], 'the primary key is (run_id, step_slug)');
select col_default_is('pgflow', 'step_states', 'status', 'created'::text, 'status defaults to created');
select col_is_null('pgflow', 'step_states', 'remaining_tasks', 'remaining_tasks is nullable (NULL = not started)');
select col_default_is('pgflow', 'step_states', 'remaining_deps', 0, 'remaining_deps defaults to 0');
select col_not_null('pgflow', 'step_states', 'remaining_deps', 'remaining_deps is not null');
select col_is_null('pgflow', 'step_states', 'initial_tasks', 'initial_tasks is nullable (NULL = unknown yet)');
select fk_ok('pgflow', 'step_states', array['flow_slug', 'step_slug'], 'pgflow', 'steps', array['flow_slug', 'step_slug'],
  'step_states (flow_slug, step_slug) references steps');
select fk_ok('pgflow', 'step_states', 'run_id', 'pgflow', 'runs', 'run_id',
  'step_states.run_id references runs');

-- TEST: exactly these columns are NOT NULL (every other column is nullable)
select is(
  array(select a.attname::text from pg_attribute as a
        where a.attrelid = 'pgflow.step_states'::regclass and a.attnum > 0 and not a.attisdropped and a.attnotnull
        order by a.attnum),
  array['flow_slug', 'run_id', 'step_slug', 'status', 'remaining_deps', 'created_at'],
  'the NOT NULL columns of pgflow.step_states are exactly upstream''s');

select * from finish();
rollback;
