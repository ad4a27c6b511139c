begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: h (waits for "go" 60 s, continue, handler); nap (timer 60 s) -> after. Both due.
select pgflow.create_flow('tw', max_attempts => 1);
select pgflow.add_step('tw', 'h');
select pgflow.add_wait('tw', 'h', 'go', timeout => 60, on_timeout => 'continue');
select pgflow.add_step('tw', 'nap');
select pgflow.add_timer('tw', 'nap', seconds => 60);
select pgflow.add_step('tw', 'after', array['nap']);
select run_id from pgflow.start_flow('tw', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

select results_eq($$select * from pgflow.tick()$$, $$values (true, 2, 0, 0, 0, 0)$$, 'the first tick fires both');
create temp table after_first as
  select (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s) as steps,
         (select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t) as tasks,
         (select jsonb_agg(to_jsonb(w) order by w.step_slug) from pgflow.wait_states as w) as waits,
         (select count(*) from pgflow.run_events) as events,
         pgflow_tests.queue_count('tw') as messages;

-- TEST: a second (and third) tick fire nothing and change nothing
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'the second tick fires nothing');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'nor does a third');
select is(
  (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s), (select steps from after_first),
  'step states unchanged');
select is(
  (select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t), (select tasks from after_first),
  'tasks unchanged: h has one task, after one');
select is(
  (select count(*) from pgflow.run_events), (select events from after_first), 'no event recorded');
select is(pgflow_tests.queue_count('tw'), (select messages from after_first), 'no message sent');

select * from finish();
rollback;
