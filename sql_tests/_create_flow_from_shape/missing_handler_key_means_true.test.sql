begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow._create_flow_from_shape('waits', pgflow_tests.shape(
  pgflow_tests.shape_step('approved') || '{"wait": {"kind": "signal", "signal": "approved"}}',
  pgflow_tests.shape_step('plain') || '{"wait": null}'));

-- TEST: add_wait's default runs_handler applies, and a null wait is none
select is((select runs_handler from pgflow.step_waits where step_slug = 'approved'), true,
  'a signal wait without "handler" runs a handler');
select is((select count(*)::int from pgflow.step_waits where step_slug = 'plain'), 0,
  'a JSON null wait adds no wait');

select * from finish();
rollback;
