begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a flow whose root skips itself and its dependent when exhausted (skip-cascade);
-- the root claimed by worker 1111...
select pgflow.create_flow('skipper', max_attempts => 1);
select pgflow.add_step('skipper', 'root', when_exhausted => 'skip-cascade');
select pgflow.add_step('skipper', 'child', array['root']);
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'skipper', 'x');
select run_id as run from pgflow.start_flow('skipper', '{}'::jsonb) \gset
select attempts_count as attempt
from pgflow.read_and_start_tasks('skipper', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset

-- TEST: step:skipped with details.skip_reason: handler_failed for the root,
-- dependency_skipped for its child, by the worker
select count(*) from pgflow.fail_task(:'run', 'root', 0, 'nope', :attempt);
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events
           where run_id = %L and event = 'step:skipped' order by id$$, :'run'),
  $$values ('root'::text, 'step:skipped'::text, 'worker:11111111-1111-1111-1111-111111111111'::text,
            '{"skip_reason": "handler_failed"}'::jsonb),
           ('child', 'step:skipped', 'worker:11111111-1111-1111-1111-111111111111',
            '{"skip_reason": "dependency_skipped"}')$$,
  'root skipped (handler_failed), child skipped (dependency_skipped)'
);

-- TEST: a step whose condition is unmet (skip mode) is skipped by the cascade of
-- start_flow: step:skipped condition_unmet by system
select pgflow.create_flow('cond', max_attempts => 1);
select pgflow.add_step('cond', 'always');
select pgflow.add_step('cond', 'maybe', required_input_pattern => '{"go": true}');
select run_id as cond_run from pgflow.start_flow('cond', '{"go": false}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor, details from pgflow.run_events
           where run_id = %L and step_slug = 'maybe' order by id$$, :'cond_run'),
  $$values ('maybe'::text, 'step:skipped'::text, 'system'::text, '{"skip_reason": "condition_unmet"}'::jsonb)$$,
  'maybe skipped by system, skip_reason condition_unmet'
);

-- TEST: skip_step by an operator: step:skipped skipped_by_operator by the verb's actor and
-- reason, and the dependent it releases starts, by the same actor
select pgflow_tests.setup_flow('sequential');
select run_id as seq_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.skip_step(:'seq_run', 'second', 'alice', 'not needed');
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events where id > %s order by id$$, :last_id),
  $$values ('second'::text, 'step:skipped'::text, 'alice'::text, 'not needed'::text, '{"skip_reason": "skipped_by_operator"}'::jsonb),
           ('last', 'step:started', 'alice', 'not needed', null)$$,
  'skip_step: second skipped (skipped_by_operator), last started, by alice'
);

select * from finish();
rollback;
