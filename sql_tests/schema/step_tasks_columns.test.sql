begin;
select plan(11);

-- TEST: columns in physical order with their types (as upstream's table; SETOF pgflow.step_tasks
-- follows it), then pgflow-py's column, appended at the end
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.step_tasks') $$,
  $$ values ('flow_slug', 'text'),
            ('run_id', 'uuid'),
            ('step_slug', 'text'),
            ('message_id', 'bigint'),
            ('task_index', 'integer'),
            ('status', 'text'),
            ('attempts_count', 'integer'),
            ('error_message', 'text'),
            ('output', 'jsonb'),
            ('queued_at', 'timestamp with time zone'),
            ('completed_at', 'timestamp with time zone'),
            ('failed_at', 'timestamp with time zone'),
            ('started_at', 'timestamp with time zone'),
            ('last_worker_id', 'uuid'),
            ('requeued_count', 'integer'),
            ('last_requeued_at', 'timestamp with time zone'),
            ('permanently_stalled_at', 'timestamp with time zone'),
            ('cancelled_at', 'timestamp with time zone'),
            ('attempt_offset', 'integer') $$,
  'pgflow.step_tasks columns are in the upstream physical order, then pgflow-py''s cancelled_at and attempt_offset');

-- TEST: keys, nullability and defaults
select col_is_pk('pgflow', 'step_tasks', array['run_id', 'step_slug', 'task_index'],
  'the primary key is (run_id, step_slug, task_index)');
select col_default_is('pgflow', 'step_tasks', 'task_index', 0, 'task_index defaults to 0');
select col_default_is('pgflow', 'step_tasks', 'status', 'queued'::text, 'status defaults to queued');
select col_default_is('pgflow', 'step_tasks', 'attempts_count', 0, 'attempts_count defaults to 0');
select col_default_is('pgflow', 'step_tasks', 'requeued_count', 0, 'requeued_count defaults to 0');
select col_is_null('pgflow', 'step_tasks', 'message_id', 'message_id is nullable');
select fk_ok('pgflow', 'step_tasks', array['run_id', 'step_slug'], 'pgflow', 'step_states', array['run_id', 'step_slug'],
  'step_tasks (run_id, step_slug) references step_states');
select fk_ok('pgflow', 'step_tasks', 'last_worker_id', 'pgflow', 'workers', 'worker_id',
  'step_tasks.last_worker_id references workers');
select is(
  (select c.confdeltype::text from pg_constraint as c
   where c.conrelid = 'pgflow.step_tasks'::regclass and c.contype = 'f'
     and c.confrelid = 'pgflow.workers'::regclass),
  'n',
  'deleting a worker sets step_tasks.last_worker_id to NULL (ON DELETE SET NULL)');

-- TEST: exactly these columns are NOT NULL (every other column is nullable)
select is(
  array(select a.attname::text from pg_attribute as a
        where a.attrelid = 'pgflow.step_tasks'::regclass and a.attnum > 0 and not a.attisdropped and a.attnotnull
        order by a.attnum),
  array['flow_slug', 'run_id', 'step_slug', 'task_index', 'status', 'attempts_count', 'queued_at', 'requeued_count',
        'attempt_offset'],
  'the NOT NULL columns of pgflow.step_tasks are upstream''s, then pgflow-py''s attempt_offset (default 0)');

select * from finish();
rollback;
