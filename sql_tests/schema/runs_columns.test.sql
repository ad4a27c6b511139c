begin;
select plan(10);

-- TEST: columns in physical order with their types (as upstream's table; SETOF pgflow.runs
-- follows it), then pgflow-py's columns, appended at the end
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.runs') $$,
  $$ values ('run_id', 'uuid'),
            ('flow_slug', 'text'),
            ('status', 'text'),
            ('input', 'jsonb'),
            ('output', 'jsonb'),
            ('remaining_steps', 'integer'),
            ('started_at', 'timestamp with time zone'),
            ('completed_at', 'timestamp with time zone'),
            ('failed_at', 'timestamp with time zone'),
            ('cancelled_at', 'timestamp with time zone'),
            ('paused_at', 'timestamp with time zone'),
            ('rerun_of', 'uuid'),
            ('idempotency_key', 'text'),
            ('concurrency_key', 'text'),
            ('deadline', 'timestamp with time zone'),
            ('queued_at', 'timestamp with time zone'),
            ('queue_seq', 'bigint'),
            ('expired_at', 'timestamp with time zone') $$,
  'pgflow.runs columns are in the upstream physical order (no error column), then pgflow-py''s cancelled_at, paused_at, rerun_of, idempotency_key, concurrency_key, deadline, queued_at, queue_seq, expired_at');

-- TEST: keys, nullability and defaults
select col_is_pk('pgflow', 'runs', 'run_id', 'run_id is the primary key');
select col_default_is('pgflow', 'runs', 'run_id', 'gen_random_uuid()', 'run_id defaults to gen_random_uuid()');
select col_default_is('pgflow', 'runs', 'status', 'started'::text, 'status defaults to started');
select col_default_is('pgflow', 'runs', 'remaining_steps', 0, 'remaining_steps defaults to 0');
select col_not_null('pgflow', 'runs', 'input', 'input is not null');
select col_is_null('pgflow', 'runs', 'output', 'output is nullable');
select col_default_is('pgflow', 'runs', 'started_at', 'now()', 'started_at defaults to now()');
select fk_ok('pgflow', 'runs', 'flow_slug', 'pgflow', 'flows', 'flow_slug',
  'runs.flow_slug references flows.flow_slug');

-- TEST: exactly these columns are NOT NULL (every other column is nullable)
select is(
  array(select a.attname::text from pg_attribute as a
        where a.attrelid = 'pgflow.runs'::regclass and a.attnum > 0 and not a.attisdropped and a.attnotnull
        order by a.attnum),
  array['run_id', 'flow_slug', 'status', 'input', 'remaining_steps', 'started_at'],
  'the NOT NULL columns of pgflow.runs are exactly upstream''s');

select * from finish();
rollback;
