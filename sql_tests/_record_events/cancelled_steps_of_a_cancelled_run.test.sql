begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: the diamond flow (root -> left, right -> last): root completed, left and right
-- started, last created
select pgflow_tests.setup_flow('diamond');
select run_id as run from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run', 'root');
select max(id) as last_id from pgflow.run_events \gset

-- TEST: cancel_run: step:cancelled for every unfinished step (started or created), by the
-- verb's actor with its reason; the completed root gets nothing
select count(*) from pgflow.cancel_run(:'run', 'alice', 'wrong input');
select bag_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events
           where run_id = %L and step_slug is not null and id > %s$$, :'run', :last_id),
  $$values ('left'::text, 'step:cancelled'::text, 'alice'::text, 'wrong input'::text, null::jsonb),
           ('right', 'step:cancelled', 'alice', 'wrong input', null),
           ('last', 'step:cancelled', 'alice', 'wrong input', null)$$,
  'left, right and last cancelled by alice (reason wrong input)'
);
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run' and step_slug = 'root' and id > :last_id),
  0, 'nothing for the completed root');

-- TEST: the run itself: one run:cancelled by alice, written before its steps'
select results_eq(
  format($$select event, actor, reason, details, id < (select min(id) from pgflow.run_events
                                                       where id > %s and event = 'step:cancelled')
           from pgflow.run_events where id > %s and step_slug is null$$, :last_id, :last_id),
  $$values ('run:cancelled'::text, 'alice'::text, 'wrong input'::text, null::jsonb, true)$$,
  'run:cancelled by alice, reason wrong input, before the step:cancelled rows'
);

select * from finish();
rollback;
