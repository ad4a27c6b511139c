begin;
select plan(17);

-- TEST: columns in physical order with their types (as upstream's table, compat/UPSTREAM.md)
select results_eq(
  $$ select * from pgflow_tests.table_columns('pgflow.steps') $$,
  $$ values ('flow_slug', 'text'),
            ('step_slug', 'text'),
            ('step_type', 'text'),
            ('step_index', 'integer'),
            ('deps_count', 'integer'),
            ('opt_max_attempts', 'integer'),
            ('opt_base_delay', 'integer'),
            ('opt_timeout', 'integer'),
            ('created_at', 'timestamp with time zone'),
            ('opt_start_delay', 'integer'),
            ('required_input_pattern', 'jsonb'),
            ('forbidden_input_pattern', 'jsonb'),
            ('when_unmet', 'text'),
            ('when_exhausted', 'text'),
            ('opt_max_in_flight', 'integer') $$,
  'pgflow.steps columns are in the upstream physical order, then pgflow-py''s opt_max_in_flight');

-- TEST: nullability
select col_not_null('pgflow', 'steps', 'step_type', 'step_type is not null');
select col_not_null('pgflow', 'steps', 'step_index', 'step_index is not null');
select col_not_null('pgflow', 'steps', 'deps_count', 'deps_count is not null');
select col_is_null('pgflow', 'steps', 'opt_max_attempts', 'opt_max_attempts is nullable (NULL = inherit)');
select col_is_null('pgflow', 'steps', 'opt_start_delay', 'opt_start_delay is nullable');
select col_is_null('pgflow', 'steps', 'required_input_pattern', 'required_input_pattern is nullable');
select col_not_null('pgflow', 'steps', 'when_unmet', 'when_unmet is not null');
select col_not_null('pgflow', 'steps', 'when_exhausted', 'when_exhausted is not null');

-- TEST: defaults
select col_default_is('pgflow', 'steps', 'step_type', 'single'::text, 'step_type defaults to single');
select col_default_is('pgflow', 'steps', 'step_index', 0, 'step_index defaults to 0');
select col_default_is('pgflow', 'steps', 'deps_count', 0, 'deps_count defaults to 0');
select col_default_is('pgflow', 'steps', 'when_unmet', 'skip'::text, 'when_unmet defaults to skip');
select col_default_is('pgflow', 'steps', 'when_exhausted', 'fail'::text, 'when_exhausted defaults to fail');
select col_hasnt_default('pgflow', 'steps', 'opt_timeout', 'opt_timeout has no default');

-- TEST: keys
select col_is_unique('pgflow', 'steps', array['flow_slug', 'step_index'],
  '(flow_slug, step_index) is unique');

-- TEST: exactly these columns are NOT NULL (every other column is nullable)
select is(
  array(select a.attname::text from pg_attribute as a
        where a.attrelid = 'pgflow.steps'::regclass and a.attnum > 0 and not a.attisdropped and a.attnotnull
        order by a.attnum),
  array['flow_slug', 'step_slug', 'step_type', 'step_index', 'deps_count', 'created_at', 'when_unmet', 'when_exhausted'],
  'the NOT NULL columns of pgflow.steps are exactly upstream''s');

select * from finish();
rollback;
