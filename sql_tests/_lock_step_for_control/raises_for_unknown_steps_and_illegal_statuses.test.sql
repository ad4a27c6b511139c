begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a started sequential run (first started, second and last created) and a failed
-- two_roots run (root_a failed, root_b and last cancelled)
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('two_roots');
select run_id as started from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'failed', 'root_a');
select count(*) as events_before from pgflow.run_events \gset

create function pg_temp.lock_step(run_id uuid, step_slug text, legal text[]) returns pgflow.step_states
language sql as $f$
  select pgflow._lock_step_for_control('my_verb', (select r from pgflow.runs as r where r.run_id = $1), $2, $3)
$f$;

-- TEST: unknown step
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'nope', array['created'])$$, :'started'),
  'P0002',
  format('my_verb: run %s has no step ''nope''', :'started'),
  'an unknown step raises P0002 naming the run and the step'
);
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'first', array['created'])$$, :'failed'),
  'P0002',
  format('my_verb: run %s has no step ''first''', :'failed'),
  'a step of another flow is unknown in this run'
);

-- TEST: a step status the verb does not accept
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'first', array['created', 'failed'])$$, :'started'),
  '55000',
  format('my_verb: step ''first'' of run %s is started (the run is started)', :'started'),
  'a started step where created or failed is legal raises 55000 naming both statuses'
);
create function pg_temp.error_fields(sql text) returns text[] language plpgsql as $f$
declare v_detail text; v_hint text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics v_detail = pg_exception_detail, v_hint = pg_exception_hint;
  return array[v_detail, v_hint];
end $f$;
select is(
  pg_temp.error_fields(format($$select pg_temp.lock_step(%L, 'first', array['created', 'failed'])$$, :'started')),
  array['my_verb applies to a step that is created or failed (of a failed run: a failed step).', 'Nothing was changed.'],
  'the detail lists the legal step statuses, the hint says nothing was changed'
);

-- TEST: in a failed run only a failed step is accepted, even when its status is listed
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'root_b', array['cancelled', 'failed'])$$, :'failed'),
  '55000',
  format('my_verb: step ''root_b'' of run %s is cancelled (the run is failed)', :'failed'),
  'a cancelled step of a failed run raises 55000 even when cancelled is legal'
);
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'last', array['created', 'failed'])$$, :'failed'),
  '55000',
  format('my_verb: step ''last'' of run %s is cancelled (the run is failed)', :'failed'),
  'a dependent cancelled by the failure raises 55000'
);

-- TEST: and in a run that is not failed a failed step is refused
update pgflow.step_states set status = 'failed', failed_at = now(), error_message = 'x'
where run_id = :'started' and step_slug = 'first';
select throws_ok(
  format($$select pg_temp.lock_step(%L, 'first', array['created', 'failed'])$$, :'started'),
  '55000',
  format('my_verb: step ''first'' of run %s is failed (the run is started)', :'started'),
  'a failed step of a started run raises 55000'
);

-- TEST: legal combinations return the step state
select is(
  (pg_temp.lock_step(:'started', 'second', array['created', 'failed'])).status,
  'created',
  'a created step of a started run, created legal: returned'
);
select is(
  (pg_temp.lock_step(:'failed', 'root_a', array['created', 'failed'])).status,
  'failed',
  'the failed step of a failed run, failed legal: returned'
);
select is(
  (pg_temp.lock_step(:'failed', 'root_a', array['created', 'failed'])).error_message,
  'boom',
  'the returned row is the step state (its error message)'
);

-- TEST: nothing was written by the failing calls (nor by the UPDATE by hand above: only
-- the transitions record events)
select is((select count(*) from pgflow.run_events), :'events_before'::bigint,
  'no run_events row was written');

select * from finish();
rollback;
