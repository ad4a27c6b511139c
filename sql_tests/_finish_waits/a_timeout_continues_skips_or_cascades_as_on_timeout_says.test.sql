begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: five root steps waiting for a signal each, whose waits have timed out (recorded in
-- wait_states by hand as _resolve_waits does):
--   cont_h   on_timeout continue, with a handler
--   cont_n   on_timeout continue, no handler
--   skip_me  on_timeout skip              -> skip_child
--   cascade  on_timeout skip-cascade      -> cascade_child
--   soft     on_timeout fail, when_exhausted skip -> soft_child
select pgflow.create_flow('ft', max_attempts => 1);
select pgflow.add_step('ft', 'cont_h');
select pgflow.add_wait('ft', 'cont_h', 'a', timeout => 60, on_timeout => 'continue');
select pgflow.add_step('ft', 'cont_n');
select pgflow.add_wait('ft', 'cont_n', 'b', timeout => 60, on_timeout => 'continue', runs_handler => false);
select pgflow.add_step('ft', 'skip_me');
select pgflow.add_wait('ft', 'skip_me', 'c', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('ft', 'cascade');
select pgflow.add_wait('ft', 'cascade', 'd', timeout => 60, on_timeout => 'skip-cascade');
select pgflow.add_step('ft', 'soft', when_exhausted => 'skip');
select pgflow.add_wait('ft', 'soft', 'e', timeout => 30);
select pgflow.add_step('ft', 'skip_child', array['skip_me']);
select pgflow.add_step('ft', 'cascade_child', array['cascade']);
select pgflow.add_step('ft', 'soft_child', array['soft']);
select run_id from pgflow.start_flow('ft', '{}'::jsonb) \gset
update pgflow.wait_states set resolved_at = now(), outcome = 'timed_out' where run_id = :'run_id';

select pgflow._finish_waits(:'run_id', array['cont_h', 'cont_n', 'skip_me', 'cascade', 'soft']);

-- TEST: each step goes on as its on_timeout (and when_exhausted) says
select results_eq(
  format($$select step_slug, status, skip_reason, error_message, output, remaining_deps
           from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('cascade'::text, 'skipped'::text, 'timed_out'::text, null::text, null::jsonb, 0),
           ('cascade_child', 'skipped', 'dependency_skipped', null, null, 1),
           ('cont_h', 'started', null, null, null, 0),
           ('cont_n', 'completed', null, null, null, 0),
           ('skip_child', 'created', null, null, null, 0),
           ('skip_me', 'skipped', 'timed_out', null, null, 0),
           ('soft', 'skipped', 'timed_out', 'Wait for signal ''e'' timed out after 30 seconds', null, 0),
           ('soft_child', 'created', null, null, null, 0)$$,
  'continue: cont_h starts, cont_n completes with NULL; skip and soft are skipped (timed_out) and release '
  || 'their dependents; cascade is skipped with its dependent; soft keeps its error');

-- TEST: cont_h's task is queued; no other step got a task
select results_eq(
  format($$select step_slug, status from pgflow.step_tasks where run_id = %L$$, :'run_id'),
  $$values ('cont_h'::text, 'queued'::text)$$, 'one task: cont_h''s, queued');

-- TEST: the run goes on with 3 steps left (cont_h, skip_child, soft_child)
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 3)$$, 'started, 3 steps left');

-- TEST: the events, by step
select results_eq(
  format($$select step_slug, event, details ->> 'skip_reason' from pgflow.run_events
           where run_id = %L and step_slug is not null order by step_slug, id$$, :'run_id'),
  $$values ('cascade'::text, 'step:waiting'::text, null::text), ('cascade', 'step:skipped', 'timed_out'),
           ('cascade_child', 'step:skipped', 'dependency_skipped'),
           ('cont_h', 'step:waiting', null), ('cont_h', 'step:started', null),
           ('cont_n', 'step:waiting', null), ('cont_n', 'step:completed', null),
           ('skip_me', 'step:waiting', null), ('skip_me', 'step:skipped', 'timed_out'),
           ('soft', 'step:waiting', null), ('soft', 'step:skipped', 'timed_out')$$,
  'step:started, step:completed and step:skipped as applied');

-- TEST: a repeated call for the steps that went on without a failure leaves them alone
select pgflow_tests.run_snapshot(:'run_id') as before_repeat \gset
select pgflow._finish_waits(:'run_id', array['cont_h', 'cont_n', 'skip_me', 'cascade']);
select is(pgflow_tests.run_snapshot(:'run_id'), :'before_repeat'::jsonb, 'nothing changed');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 1, 'still one task');

select * from finish();
rollback;
