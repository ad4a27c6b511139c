begin;
select plan(6);

-- TEST: columns in physical order with their types (as upstream's table; stopped_at appended last)
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.workers') $$,
  $$ values ('worker_id', 'uuid'),
            ('queue_name', 'text'),
            ('function_name', 'text'),
            ('started_at', 'timestamp with time zone'),
            ('deprecated_at', 'timestamp with time zone'),
            ('last_heartbeat_at', 'timestamp with time zone'),
            ('stopped_at', 'timestamp with time zone') $$,
  'pgflow.workers columns are in the upstream physical order');

-- TEST: keys, nullability and defaults
select col_is_pk('pgflow', 'workers', 'worker_id', 'worker_id is the primary key');
select col_hasnt_default('pgflow', 'workers', 'worker_id', 'worker_id has no default (supplied by the worker)');
select col_default_is('pgflow', 'workers', 'started_at', 'now()', 'started_at defaults to now()');
select col_not_null('pgflow', 'workers', 'last_heartbeat_at', 'last_heartbeat_at is not null');
select col_default_is('pgflow', 'workers', 'last_heartbeat_at', 'now()', 'last_heartbeat_at defaults to now()');

select * from finish();
rollback;
