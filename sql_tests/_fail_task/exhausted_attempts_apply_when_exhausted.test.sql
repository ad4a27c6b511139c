begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: one attempt each; "hard" fails the run when exhausted, "soft" skips the step
select pgflow.create_flow('hard', max_attempts => 1);
select pgflow.add_step('hard', 'only');
select pgflow.create_flow('soft', max_attempts => 1);
select pgflow.add_step('soft', 'only', when_exhausted => 'skip');
select run_id as r_hard from pgflow.start_flow('hard', '{}'::jsonb) \gset
select run_id as r_soft from pgflow.start_flow('soft', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r_hard', 'only');
select count(*) from pgflow_tests.start_task(:'r_soft', 'only');

-- TEST: failed / exhausted for both
select results_eq(
  format($$select f.outcome, f.reason from (values (1, %L::uuid), (2, %L::uuid)) as v (n, r),
           lateral pgflow._fail_task(v.r, 'only', 0, 'boom', 1) as f order by v.n$$, :'r_hard', :'r_soft'),
  $$values ('failed'::text, 'exhausted'::text), ('failed', 'exhausted')$$,
  'the last attempt''s failure is failed / exhausted'
);

-- TEST: the task fails for good and its message is archived
select results_eq(
  $$select status, error_message, pgflow_tests.message_exists(flow_slug, message_id, 'a')
    from pgflow.step_tasks order by flow_slug$$,
  $$values ('failed'::text, 'boom'::text, true), ('failed', 'boom', true)$$,
  'both tasks are failed with the error, their messages archived'
);

-- TEST: when_exhausted decides for the step and the run
select results_eq(
  format($$select ss.status, r.status from pgflow.step_states as ss join pgflow.runs as r using (run_id)
           where r.run_id = %L$$, :'r_hard'),
  $$values ('failed'::text, 'failed'::text)$$,
  'fail: the step and the run are failed'
);
select results_eq(
  format($$select ss.status, ss.skip_reason, r.status from pgflow.step_states as ss join pgflow.runs as r using (run_id)
           where r.run_id = %L$$, :'r_soft'),
  $$values ('skipped'::text, 'handler_failed'::text, 'completed'::text)$$,
  'skip: the step is skipped and the run completes without it'
);

select * from finish();
rollback;
