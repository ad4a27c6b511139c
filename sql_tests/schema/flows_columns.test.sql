begin;
select plan(11);

-- TEST: columns in physical order with their types (as upstream's table, compat/UPSTREAM.md)
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.flows') $$,
  $$ values ('flow_slug', 'text'),
            ('opt_max_attempts', 'integer'),
            ('opt_base_delay', 'integer'),
            ('opt_timeout', 'integer'),
            ('created_at', 'timestamp with time zone'),
            ('opt_concurrency_limit', 'integer'),
            ('opt_on_limit', 'text'),
            ('opt_run_timeout', 'integer') $$,
  'pgflow.flows has columns flow_slug, opt_max_attempts, opt_base_delay, opt_timeout, created_at in this order, then pgflow-py''s opt_concurrency_limit, opt_on_limit, opt_run_timeout');

-- TEST: nullability and defaults
select col_is_pk('pgflow', 'flows', 'flow_slug', 'flow_slug is the primary key');
select col_not_null('pgflow', 'flows', 'opt_max_attempts', 'opt_max_attempts is not null');
select col_not_null('pgflow', 'flows', 'opt_base_delay', 'opt_base_delay is not null');
select col_not_null('pgflow', 'flows', 'opt_timeout', 'opt_timeout is not null');
select col_not_null('pgflow', 'flows', 'created_at', 'created_at is not null');
select col_default_is('pgflow', 'flows', 'opt_max_attempts', 3, 'opt_max_attempts defaults to 3');
select col_default_is('pgflow', 'flows', 'opt_base_delay', 1,
  'opt_base_delay table default is 1 (create_flow passes 5)');
select col_default_is('pgflow', 'flows', 'opt_timeout', 60, 'opt_timeout defaults to 60');
select col_default_is('pgflow', 'flows', 'created_at', 'now()', 'created_at defaults to now()');

-- TEST: exactly these columns are NOT NULL (every other column is nullable)
select is(
  array(select a.attname::text from pg_attribute as a
        where a.attrelid = 'pgflow.flows'::regclass and a.attnum > 0 and not a.attisdropped and a.attnotnull
        order by a.attnum),
  array['flow_slug', 'opt_max_attempts', 'opt_base_delay', 'opt_timeout', 'created_at', 'opt_on_limit'],
  'the NOT NULL columns of pgflow.flows are upstream''s, then pgflow-py''s opt_on_limit (default queue, so inserts that omit it work)');

select * from finish();
rollback;
