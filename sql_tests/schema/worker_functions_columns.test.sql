begin;
select plan(8);

-- TEST: columns in physical order with their types (as upstream's table, compat/UPSTREAM.md)
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.worker_functions') $$,
  $$ values ('function_name', 'text'),
            ('enabled', 'boolean'),
            ('debounce', 'interval'),
            ('last_invoked_at', 'timestamp with time zone'),
            ('created_at', 'timestamp with time zone'),
            ('updated_at', 'timestamp with time zone') $$,
  'pgflow.worker_functions columns are in the upstream physical order');

-- TEST: keys, nullability and defaults
select col_is_pk('pgflow', 'worker_functions', 'function_name', 'function_name is the primary key');
select col_not_null('pgflow', 'worker_functions', 'enabled', 'enabled is not null');
select col_default_is('pgflow', 'worker_functions', 'enabled', true, 'enabled defaults to true');
select col_not_null('pgflow', 'worker_functions', 'debounce', 'debounce is not null');
select col_default_is('pgflow', 'worker_functions', 'debounce', '6 seconds'::interval, 'debounce defaults to 6 seconds');

-- TEST: debounce must be at least one second
select throws_ok(
  $$ insert into pgflow.worker_functions (function_name, debounce) values ('too_fast', '500 milliseconds') $$,
  '23514', null,
  'a debounce under one second raises a check violation');
select lives_ok(
  $$ insert into pgflow.worker_functions (function_name, debounce) values ('just_right', '1 second') $$,
  'a debounce of exactly one second is accepted');

select * from finish();
rollback;
