begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');
select pgflow.add_step('flow_a', 'first');

-- TEST: a step without options gets the column defaults and NULL (= inherit) options
select results_eq(
  $$ select step_type, step_index, deps_count, when_unmet, when_exhausted
     from pgflow.steps where flow_slug = 'flow_a' and step_slug = 'first' $$,
  $$ values ('single'::text, 0, 0, 'skip'::text, 'fail'::text) $$,
  'type single, index 0, no deps, when_unmet skip, when_exhausted fail');
select results_eq(
  $$ select opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay,
            required_input_pattern, forbidden_input_pattern
     from pgflow.steps where flow_slug = 'flow_a' and step_slug = 'first' $$,
  $$ values (null::int, null::int, null::int, null::int, null::jsonb, null::jsonb) $$,
  'all options and patterns are NULL (inherit / none)');
select is((select count(*)::int from pgflow.deps where flow_slug = 'flow_a'), 0,
  'a root step has no dependency rows');

select * from finish();
rollback;
