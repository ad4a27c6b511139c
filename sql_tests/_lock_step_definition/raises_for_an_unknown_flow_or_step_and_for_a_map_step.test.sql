begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow batch: load -> items (a map step)
select pgflow.create_flow('batch');
select pgflow.add_step('batch', 'load');
select pgflow.add_step('batch', 'items', array['load'], step_type => 'map');

-- The error fields of one statement: {sqlstate, message, hint}; NULL when it did not raise.
create function pg_temp.error_of(sql text) returns text[] language plpgsql as $f$
declare v_state text; v_message text; v_hint text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_hint = pg_exception_hint;
  return array[v_state, v_message, v_hint];
end $f$;

-- TEST: an unknown step, an unknown flow, NULLs: foreign_key_violation naming the caller
select throws_ok($$select pgflow._lock_step_definition('add_wait', 'batch', 'nope')$$, '23503',
  'add_wait: step ''nope'' of flow ''batch'' does not exist', 'an unknown step raises 23503');
select throws_ok($$select pgflow._lock_step_definition('add_timer', 'nope', 'load')$$, '23503',
  'add_timer: step ''load'' of flow ''nope'' does not exist', 'an unknown flow raises 23503');
select throws_ok($$select pgflow._lock_step_definition('add_wait', null, null)$$, '23503',
  'add_wait: step NULL of flow NULL does not exist', 'NULL flow and step raise 23503');
select is(pg_temp.error_of($$select pgflow._lock_step_definition('add_wait', 'batch', 'nope')$$),
  array['23503', 'add_wait: step ''nope'' of flow ''batch'' does not exist', 'Add the step first with pgflow.add_step.'],
  'the error hints at add_step');

-- TEST: a map step: check_violation, only a single step can wait
select throws_ok($$select pgflow._lock_step_definition('add_timer', 'batch', 'items')$$, '23514',
  'add_timer: step ''items'' of flow ''batch'' is a map step; only a single step can wait',
  'a map step raises 23514');
select is(pg_temp.error_of($$select pgflow._lock_step_definition('add_wait', 'batch', 'items')$$),
  array['23514', 'add_wait: step ''items'' of flow ''batch'' is a map step; only a single step can wait',
        'Put a wait step before the map step (depends_on).'],
  'the error hints at a wait step before the map');

-- TEST: the single step of the same flow is returned
select is((pgflow._lock_step_definition('add_wait', 'batch', 'load')).step_slug, 'load', 'load (single) is returned');

select * from finish();
rollback;
