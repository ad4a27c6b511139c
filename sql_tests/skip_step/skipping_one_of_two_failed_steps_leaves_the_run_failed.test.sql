begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: two_roots root_a, root_b -> last, max_attempts 1. root_a fails and fails the run;
-- root_b (cancelled by that failure) is made failed by hand, as if its failure had been
-- recorded too: two failed steps.
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'root_a', 0, 'a broke');
update pgflow.step_states
set status = 'failed', failed_at = now(), cancelled_at = null, error_message = 'b broke'
where run_id = :'run_id' and step_slug = 'root_b';
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'cancelled'::text), ('root_a', 'failed'), ('root_b', 'failed')$$,
  'setup: two failed roots, last cancelled, run failed'
);

-- TEST: skipping one failed step leaves the run failed
select results_eq(
  format($$select * from pgflow.skip_step(%L, 'root_a', 'alice', 'skip a')$$, :'run_id'),
  format($$values (%L::uuid, 'failed'::text, true, null::text)$$, :'run_id'),
  'skip_step returns changed, the run still failed'
);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'cancelled'::text), ('root_a', 'skipped'), ('root_b', 'failed')$$,
  'root_a skipped, root_b still failed, last still cancelled'
);
select results_eq(
  format($$select status, failed_at is not null from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true)$$,
  'the run is failed, failed_at kept'
);
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_id' and event = 'run:retried'),
  0,
  'no run:retried'
);

-- TEST: skipping the other failed step too starts the run again; last runs with no input
select results_eq(
  format($$select status, changed from pgflow.skip_step(%L, 'root_b', 'alice', 'skip b')$$, :'run_id'),
  $$values ('started'::text, true)$$,
  'skipping the last failed step starts the run again'
);
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'last'$$, :'run_id'),
  $$values ('started'::text, 0)$$,
  'last (both parents skipped) is started'
);
select pgflow_tests.start_and_complete_task(:'run_id', 'last', 0, '"end"'::jsonb);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0)$$,
  'the run completes'
);

select * from finish();
rollback;
