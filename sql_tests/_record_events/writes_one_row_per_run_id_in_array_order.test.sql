begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: three run ids (run_events has no foreign key: no run rows are needed);
-- pgflow.actor and pgflow.reason unset
select gen_random_uuid() as r1, gen_random_uuid() as r2, gen_random_uuid() as r3 \gset
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', '', true);
select coalesce(max(id), 0) as last_id from pgflow.run_events \gset

-- TEST: one event name for every row, no step_slugs, no details: one run event per run id,
-- in array order, by system, no reason, no task, at the transaction's time
select pgflow._record_events(array['run:completed'], array[:'r1', :'r2', :'r3']::uuid[]);
select results_eq(
  format($$select run_id, step_slug, task_index, event, actor, reason, details, created_at = now()
           from pgflow.run_events where id > %s order by id$$, :last_id),
  format($$values (%L::uuid, null::text, null::int, 'run:completed'::text, 'system'::text, null::text, null::jsonb, true),
                  (%L, null, null, 'run:completed', 'system', null, null, true),
                  (%L, null, null, 'run:completed', 'system', null, null, true)$$, :'r1', :'r2', :'r3'),
  'one name for all: run:completed for r1, r2, r3 in that order, step NULL, details NULL'
);

-- TEST: one name per row, with a step slug (NULL: a run event) and details per row
select max(id) as last_id from pgflow.run_events \gset
select pgflow._record_events(
  array['step:started', 'step:failed', 'run:failed'],
  array[:'r1', :'r1', :'r2']::uuid[],
  array['a', 'b', null],
  details => array[null, '{"error_message": "x"}', '{"error_message": "y"}']::jsonb[]);
select results_eq(
  format($$select run_id, step_slug, event, details from pgflow.run_events where id > %s order by id$$, :last_id),
  format($$values (%1$L::uuid, 'a'::text, 'step:started'::text, null::jsonb),
                  (%1$L, 'b', 'step:failed', '{"error_message": "x"}'),
                  (%2$L, null, 'run:failed', '{"error_message": "y"}')$$, :'r1', :'r2'),
  'one name per row: each row its event, step and details'
);

-- TEST: step_slugs NULL (as _fail_run passes it) with details: a run event carrying them
select max(id) as last_id from pgflow.run_events \gset
select pgflow._record_events(array['run:failed'], array[:'r3']::uuid[], details => array['{"error_message": "z"}'::jsonb]);
select results_eq(
  format($$select run_id, step_slug, event, details from pgflow.run_events where id > %s$$, :last_id),
  format($$values (%L::uuid, null::text, 'run:failed'::text, '{"error_message": "z"}'::jsonb)$$, :'r3'),
  'step_slugs NULL: run:failed of r3 with its details'
);

-- TEST: a NULL run_id is skipped; the other rows keep their own event, step and details
select max(id) as last_id from pgflow.run_events \gset
select pgflow._record_events(
  array['step:started', 'step:completed', 'step:skipped'],
  array[:'r1', null, :'r2']::uuid[],
  array['a', 'b', 'c'],
  details => array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[]);
select results_eq(
  format($$select run_id, step_slug, event, details from pgflow.run_events where id > %s order by id$$, :last_id),
  format($$values (%L::uuid, 'a'::text, 'step:started'::text, '{"n": 1}'::jsonb),
                  (%L, 'c', 'step:skipped', '{"n": 3}')$$, :'r1', :'r2'),
  'the NULL run_id writes nothing; rows 1 and 3 as given (not shifted)'
);

-- TEST: empty, NULL or all-NULL run_ids write nothing
select count(*) as before from pgflow.run_events \gset
select pgflow._record_events(array['run:completed'], '{}'::uuid[]);
select pgflow._record_events(array['run:completed'], null::uuid[]);
select pgflow._record_events(array['run:completed'], array[null, null]::uuid[]);
select is((select count(*) from pgflow.run_events), :before::bigint, 'empty, NULL and {NULL,NULL} run_ids: nothing written');

-- TEST: the rows are in the caller's transaction: a rolled-back savepoint takes them away
savepoint s;
select pgflow._record_events(array['run:cancelled'], array[:'r1']::uuid[]);
rollback to savepoint s;
select is((select count(*) from pgflow.run_events), :before::bigint, 'rolled back with the caller');

select * from finish();
rollback;
