begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: requires {"kind": "order"} and forbids {"draft": true}
select pgflow.create_flow('cond');
select pgflow.add_step('cond', 'process',
  required_input_pattern => '{"kind": "order"}',
  forbidden_input_pattern => '{"draft": true}');
select run_id as r_both_ok from pgflow.start_flow('cond', '{"kind": "order", "draft": false}'::jsonb) \gset
select run_id as r_forbidden from pgflow.start_flow('cond', '{"kind": "order", "draft": true}'::jsonb) \gset
select run_id as r_missing from pgflow.start_flow('cond', '{"kind": "refund"}'::jsonb) \gset
select run_id as r_neither from pgflow.start_flow('cond', '{"kind": "refund", "draft": true}'::jsonb) \gset

-- TEST: the step runs only when required holds and forbidden does not
select is((select status from pgflow.step_states where run_id = :'r_both_ok'), 'started',
  'required contained and forbidden absent -> started');
select is((select status from pgflow.step_states where run_id = :'r_forbidden'), 'skipped',
  'required contained but forbidden contained too -> skipped');
select is((select status from pgflow.step_states where run_id = :'r_missing'), 'skipped',
  'required not contained -> skipped');
select is((select status from pgflow.step_states where run_id = :'r_neither'), 'skipped',
  'required not contained and forbidden contained -> skipped');

select * from finish();
rollback;
