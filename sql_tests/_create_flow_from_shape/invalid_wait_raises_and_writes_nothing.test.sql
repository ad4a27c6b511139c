begin;
select plan(8);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: a wait that is not an object of kind signal or timer is refused
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": {"kind": "webhook", "signal": "x"}}')) $$, '22023',
  'Shape of flow ''bad'': the wait of step ''a'' must be an object with kind "signal" or "timer" (got {"kind": "webhook", "signal": "x"})',
  'an unknown kind raises invalid_parameter_value');
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": "approved"}')) $$, '22023', null,
  'a wait that is not an object raises invalid_parameter_value');
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": {"signal": "approved"}}')) $$, '22023', null,
  'a wait without kind raises invalid_parameter_value');

-- TEST: add_wait's and add_timer's own checks apply
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": {"kind": "signal", "signal": " padded "}}')) $$, '22023', null,
  'a bad signal name raises invalid_parameter_value');
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": {"kind": "signal", "signal": "ok", "timeout": 0}}')) $$, '22023', null,
  'a timeout of 0 raises invalid_parameter_value');
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a') || '{"wait": {"kind": "timer", "seconds": 5, "until": "input.at"}}')) $$, '22023', null,
  'a timer with seconds and until raises invalid_parameter_value');
select throws_ok($$ select pgflow._create_flow_from_shape('bad', pgflow_tests.shape(
    pgflow_tests.shape_step('a', 'map') || '{"wait": {"kind": "signal", "signal": "ok"}}')) $$, '23514', null,
  'a wait on a map step raises check_violation');

-- TEST: nothing was written
select is(
  pgflow_tests.row_counts() || jsonb_build_object('step_waits', (select count(*) from pgflow.step_waits)),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0, "step_waits": 0}'::jsonb,
  'no flow, step, wait or queue is left');

select * from finish();
rollback;
