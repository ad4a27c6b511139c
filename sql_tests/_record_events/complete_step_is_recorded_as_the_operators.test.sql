begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (max_attempts 1): run "stuck" with first started; run "broken"
-- failed on first (second and last cancelled)
select pgflow_tests.setup_flow('sequential');
select run_id as stuck from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as broken from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_fail_task(:'broken', 'first');
select max(id) as last_id from pgflow.run_events \gset

-- TEST: complete_step of a started step: step:completed, then its dependent started, by
-- the verb's actor with its reason
select count(*) from pgflow.complete_step(:'stuck', 'first', '{"by": "hand"}'::jsonb, 'alice', 'task stuck');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('first'::text, 'step:completed'::text, 'alice'::text, 'task stuck'::text),
           ('second', 'step:started', 'alice', 'task stuck')$$,
  'first completed and second started, by alice'
);

-- TEST: complete_step of the failed step of a failed run: step:completed, the cancelled
-- steps reset, the run retried, second started, all by the verb's actor
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.complete_step(:'broken', 'first', '{"by": "hand"}'::jsonb, 'bob', null);
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('first'::text, 'step:completed'::text, 'bob'::text, null::jsonb),
           ('last', 'step:reset', 'bob', '{"from": "cancelled"}'),
           ('second', 'step:reset', 'bob', '{"from": "cancelled"}'),
           (null, 'run:retried', 'bob', null),
           ('second', 'step:started', 'bob', null)$$,
  'first completed; last and second reset; run retried; second started; by bob'
);

select * from finish();
rollback;
