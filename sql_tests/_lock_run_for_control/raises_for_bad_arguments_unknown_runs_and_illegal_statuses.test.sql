begin;
select plan(14);
select pgflow_tests.reset_db();

-- SETUP: a started run and a failed run of the sequential flow
select pgflow_tests.setup_flow('sequential');
select run_id as started from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run(:'failed', 'boom');
select count(*) as events_before from pgflow.run_events \gset

-- TEST: a NULL or blank actor is refused before anything is looked up
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, null, null, array['failed'])$$, :'failed'),
  '22023',
  'my_verb: actor must name who acts (got NULL)',
  'a NULL actor raises 22023 naming the verb'
);
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, '   ', null, array['failed'])$$, :'failed'),
  '22023',
  'my_verb: actor must name who acts (got ''   '')',
  'a blank actor raises 22023 quoting it'
);
select throws_ok(
  $$select pgflow._lock_run_for_control('my_verb', '00000000-0000-0000-0000-000000000000', '', null, array['failed'])$$,
  '22023',
  'my_verb: actor must name who acts (got '''')',
  'the actor is checked before the run is looked up (unknown run, blank actor: 22023)'
);

-- TEST: expected_status must be a run status
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, 'alice', 'running', array['failed'])$$, :'failed'),
  '22023',
  'my_verb: expected_status ''running'' is not a run status',
  'an unknown expected_status raises 22023'
);
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, 'alice', 'created', array['failed'])$$, :'failed'),
  '22023',
  'my_verb: expected_status ''created'' is not a run status',
  'a step status is not a run status'
);

-- TEST: unknown run
select throws_ok(
  $$select pgflow._lock_run_for_control('my_verb', '00000000-0000-0000-0000-000000000000', 'alice', null, array['failed'])$$,
  'P0002',
  'my_verb: run 00000000-0000-0000-0000-000000000000 does not exist',
  'an unknown run raises P0002 naming it'
);
select throws_ok(
  $$select pgflow._lock_run_for_control('my_verb', null, 'alice', null, array['failed'])$$,
  'P0002',
  'my_verb: run NULL does not exist',
  'a NULL run id raises P0002'
);

-- TEST: a run in a status the verb does not accept
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, 'alice', null, array['failed'])$$, :'started'),
  '55000',
  format('my_verb: run %s is started', :'started'),
  'a run not in legal_statuses raises 55000 naming its status'
);
select throws_ok(
  format($$select pgflow._lock_run_for_control('my_verb', %L, 'alice', 'started', array['failed', 'paused'])$$, :'started'),
  '55000',
  format('my_verb: run %s is started', :'started'),
  'an expected_status that matches an illegal status still raises 55000'
);

-- TEST: the detail and hint of the 55000 error
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
  pg_temp.error_fields(format($$select pgflow._lock_run_for_control('my_verb', %L, 'alice', null, array['failed', 'paused'])$$, :'started')),
  array['my_verb applies to a run that is failed or paused.', 'Nothing was changed.'],
  'the 55000 error lists the legal statuses in its detail and says nothing was changed'
);

-- TEST: expected_status that differs from the run's status: the run is returned, no error
select is(
  (pgflow._lock_run_for_control('my_verb', :'started', 'alice', 'failed', array['failed'])).status,
  'started',
  'with another expected_status the run is returned as it is, even in an illegal status'
);

-- TEST: a legal status returns the run row
select is(
  (pgflow._lock_run_for_control('my_verb', :'failed', 'alice', null, array['failed'])).run_id,
  :'failed'::uuid,
  'a run in a legal status is returned'
);
select is(
  (pgflow._lock_run_for_control('my_verb', :'failed', 'alice', 'failed', array['failed'])).status,
  'failed',
  'a matching expected_status returns the run too'
);

-- TEST: nothing was written by any of these calls
select is((select count(*) from pgflow.run_events), :'events_before'::bigint, 'no run_events row was written');

select * from finish();
rollback;
