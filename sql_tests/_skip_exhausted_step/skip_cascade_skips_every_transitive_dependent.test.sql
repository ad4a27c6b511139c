begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: bad (when_exhausted skip-cascade) -> after -> end; other (a second root) and
-- joined, which depends on bad and on other; bad's task started and failed for good
select pgflow.create_flow('cascade_flow', max_attempts => 1);
select pgflow.add_step('cascade_flow', 'bad', when_exhausted => 'skip-cascade');
select pgflow.add_step('cascade_flow', 'other');
select pgflow.add_step('cascade_flow', 'after', array['bad']);
select pgflow.add_step('cascade_flow', 'end', array['after']);
select pgflow.add_step('cascade_flow', 'joined', array['bad', 'other']);
select run_id from pgflow.start_flow('cascade_flow', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'bad');
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'boom'
where run_id = :'run_id' and step_slug = 'bad';
select pgflow._archive_task_message(:'run_id', 'bad', 0);

select pgflow._skip_exhausted_step(:'run_id', 'bad', 'skip-cascade', 'handler_failed', 'boom');

-- TEST: bad keeps the reason and error given; every transitive dependent is skipped as
-- dependency_skipped; the other root is left alone
select results_eq(
  format($$ select step_slug, status, skip_reason, error_message from pgflow.step_states
            where run_id = %L order by step_slug $$, :'run_id'),
  $$ values ('after'::text, 'skipped'::text, 'dependency_skipped'::text, null::text),
            ('bad', 'skipped', 'handler_failed', 'boom'),
            ('end', 'skipped', 'dependency_skipped', null),
            ('joined', 'skipped', 'dependency_skipped', null),
            ('other', 'started', null, null) $$,
  'bad: handler_failed; after, end and joined: dependency_skipped; other still started'
);

-- TEST: each skipped step is counted once; the run is still started (the caller moves it on)
select results_eq(
  format($$ select status, remaining_steps from pgflow.runs where run_id = %L $$, :'run_id'),
  $$ values ('started'::text, 1) $$,
  'remaining_steps 5 -> 1 (four steps skipped), run still started'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug in ('after', 'end', 'joined')),
  0,
  'no task was created for the skipped dependents'
);

-- TEST: one step:skipped event per skipped step
select results_eq(
  format($$ select step_slug, details ->> 'skip_reason' from pgflow.run_events
            where run_id = %L and event = 'step:skipped' order by step_slug $$, :'run_id'),
  $$ values ('after'::text, 'dependency_skipped'::text), ('bad', 'handler_failed'),
            ('end', 'dependency_skipped'), ('joined', 'dependency_skipped') $$,
  'step:skipped for bad, after, end and joined'
);

select * from finish();
rollback;
