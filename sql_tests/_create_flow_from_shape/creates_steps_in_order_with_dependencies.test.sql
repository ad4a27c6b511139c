begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('from_shape', pgflow_tests.shape(
  pgflow_tests.shape_step('items', 'map'),
  pgflow_tests.shape_step('each', 'map', array['items']),
  pgflow_tests.shape_step('other'),
  pgflow_tests.shape_step('done', 'single', array['each', 'other'])));

-- TEST: steps keep the shape order and type
select results_eq(
  $$ select step_slug, step_index, step_type, deps_count from pgflow.steps
     where flow_slug = 'from_shape' order by step_index $$,
  $$ values ('items'::text, 0, 'map'::text, 0), ('each', 1, 'map', 1), ('other', 2, 'single', 0),
            ('done', 3, 'single', 2) $$,
  'steps are added in shape order with their types and dependency counts');
select results_eq(
  $$ select dep_slug, step_slug from pgflow.deps where flow_slug = 'from_shape' order by step_slug, dep_slug $$,
  $$ values ('each'::text, 'done'::text), ('other', 'done'), ('items', 'each') $$,
  'dependency rows are created');

select * from finish();
rollback;
