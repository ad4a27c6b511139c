begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow (first -> second -> last); pgflow.actor and pgflow.reason set
-- for this transaction
select pgflow_tests.setup_flow('sequential');
select set_config('pgflow.actor', 'ops-script', true), set_config('pgflow.reason', 'nightly cleanup', true);

-- TEST: start_flow and a worker's report made in a transaction whose caller set the actor:
-- run:started, step:started, step:completed, step:started, all by ops-script with the reason
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run', 'first');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where run_id = %L order by id$$, :'run'),
  $$values (null::text, 'run:started'::text, 'ops-script'::text, 'nightly cleanup'::text),
           ('first', 'step:started', 'ops-script', 'nightly cleanup'),
           ('first', 'step:completed', 'ops-script', 'nightly cleanup'),
           ('second', 'step:started', 'ops-script', 'nightly cleanup')$$,
  'start_flow and the report by ops-script with reason nightly cleanup (not app, not the worker)'
);

-- TEST: a reason without an actor: the transitions' own actors (app for start_flow, system
-- for a transition with none: _fail_run), the reason kept
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', 'only a reason', true);
select run_id as run2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run(:'run2', 'by hand');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where run_id = %L order by id$$, :'run2'),
  $$values (null::text, 'run:started'::text, 'app'::text, 'only a reason'::text),
           ('first', 'step:started', 'app', 'only a reason'),
           (null, 'run:failed', 'system', 'only a reason'),
           ('first', 'step:cancelled', 'system', 'only a reason'),
           ('last', 'step:cancelled', 'system', 'only a reason'),
           ('second', 'step:cancelled', 'system', 'only a reason')$$,
  'blank actor: app / system, with the reason set'
);

-- TEST: with both unset again: app / system, no reason
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', '', true);
select run_id as run3 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run(:'run3', 'by hand');
select results_eq(
  format($$select event, actor, reason from pgflow.run_events
           where run_id = %L and step_slug is null order by id$$, :'run3'),
  $$values ('run:started'::text, 'app'::text, null::text), ('run:failed', 'system', null)$$,
  'unset: app / system, reason NULL'
);

-- TEST: the actor is read per transition: a change after setting another actor is its
select set_config('pgflow.actor', 'bob', true);
select pgflow._reopen_run(:'run3', true);
select results_eq(
  format($$select event, actor from pgflow.run_events
           where run_id = %L and event = 'run:retried'$$, :'run3'),
  $$values ('run:retried'::text, 'bob'::text)$$,
  'the next transition uses the new setting');

select * from finish();
rollback;
