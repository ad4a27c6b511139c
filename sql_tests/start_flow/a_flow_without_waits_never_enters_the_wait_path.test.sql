begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: the wait functions are replaced, in this transaction only, by ones that raise: a
-- flow without waits must run start to end without calling them.
create or replace function pgflow._enter_waits(run_id uuid) returns int language plpgsql as $$
begin raise exception 'wait path called: _enter_waits'; end; $$;
create or replace function pgflow._resolve_waits(run_id uuid) returns int language plpgsql as $$
begin raise exception 'wait path called: _resolve_waits'; end; $$;
create or replace function pgflow._finish_waits(run_id uuid, step_slugs text[]) returns void language plpgsql as $$
begin raise exception 'wait path called: _finish_waits'; end; $$;
select pgflow_tests.setup_flow('sequential');
-- A flow with a condition goes through the cascade (_cascade), still without waits.
select pgflow.create_flow('cond', max_attempts => 1);
select pgflow.add_step('cond', 'first');
select pgflow.add_step('cond', 'second', array['first'], required_input_pattern => '{"first": "go"}');
select pgflow.add_step('cond', 'third', array['second']);

-- TEST: a flow without waits starts, runs and completes without the wait path
select lives_ok($$select pgflow.start_flow('sequential', '{}'::jsonb)$$, 'sequential: start_flow');
select run_id from pgflow.runs where flow_slug = 'sequential' \gset
select lives_ok(
  format($$select pgflow_tests.start_and_complete_task(%L, s) from unnest(array['first', 'second', 'last']) as s$$, :'run_id'),
  'sequential: its three tasks complete');
select lives_ok(
  $$select pgflow_tests.start_and_complete_task(run_id, s, 0, '"go"'::jsonb)
    from pgflow.start_flow('cond', '{}'::jsonb), unnest(array['first', 'second', 'third']) as s$$,
  'cond (conditions, cascade): start and complete');

-- TEST: no wait row, no signal; the events are the usual ones only
select is((select count(*)::int from pgflow.wait_states), 0, 'no wait_states row');
select results_eq(
  format($$select step_slug, event from pgflow.run_events where run_id = %L order by id$$, :'run_id'),
  $$values (null::text, 'run:started'::text), ('first', 'step:started'), ('first', 'step:completed'),
           ('second', 'step:started'), ('second', 'step:completed'), ('last', 'step:started'),
           ('last', 'step:completed'), (null, 'run:completed')$$,
  'sequential: run:started, step started/completed x3, run:completed (no step:waiting, no signal event)');
select is((select array_agg(distinct status) from pgflow.runs), array['completed'], 'both runs completed');

select * from finish();
rollback;
