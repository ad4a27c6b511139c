begin;
select plan(2);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: zeta (skip-cascade) -> alpha -> mid; slugs deliberately not alphabetical
select pgflow.create_flow('topo');
select pgflow.add_step('topo', 'zeta', required_input_pattern => '{"ok": true}', when_unmet => 'skip-cascade');
select pgflow.add_step('topo', 'alpha', array['zeta']);
select pgflow.add_step('topo', 'mid', array['alpha']);
select run_id from pgflow.start_flow('topo', '{}'::jsonb) \gset

-- TEST: skipped in dependency order, with their reasons
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:zeta:skipped', 'step:alpha:skipped', 'step:mid:skipped', 'run:completed'],
  'cascade-skipped steps are broadcast in topological order, then the run completes'
);
select results_eq(
  $$select payload ->> 'step_slug', payload ->> 'skip_reason' from realtime.messages
    where event like 'step:%:skipped' order by id$$,
  $$values ('zeta'::text, 'condition_unmet'::text), ('alpha', 'dependency_skipped'),
           ('mid', 'dependency_skipped')$$,
  'the trigger step says condition_unmet, its dependents dependency_skipped'
);

select * from finish();
rollback;
